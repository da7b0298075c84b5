"""The composition root builds one manager with every kind's controller, without any I/O (the
e2e suite runs it against an API server)."""

from __future__ import annotations

from typing import Any

import pytest

from manager.app.cli import build_parser
from manager.app.commands.operator import Operator
from manager.app.commands.run import options_from_arguments
from manager.app.kinds import COMPONENT, GRAPH, MODEL, OPTIONAL_KINDS, SCALING_ADAPTER
from manager.app.reconcilers.component_deployment.setup import WORKLOAD_READY_PRIORITY
from manager.runtime.cache import Cache, KindOptions
from manager.runtime.client import RestClient, WatchEvent
from manager.runtime.controller import Controller, Request
from manager.runtime.identity import Identity
from manager.runtime.kinds import DEPLOYMENT, JOB, PERSISTENT_VOLUME_CLAIM, POD
from manager.runtime.metrics import ServingCertificate
from manager.runtime.workqueue import DEFAULT_PRIORITY, LOW_PRIORITY

DEPLOYMENT_TYPE = {"apiVersion": "apps/v1", "kind": "Deployment"}


class _NoTransport:
    server = "https://127.0.0.1:6443"

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"no I/O while the operator is assembled ({name})")


def _operator(*flags: str) -> Operator:
    parser, _ = build_parser(["run"])
    args = parser.parse_args(["run", *flags])
    options = options_from_arguments(args, {"POD_NAMESPACE": "dynamo"})
    rest = RestClient(_NoTransport())  # type: ignore[arg-type]
    return Operator(options, Identity.for_product("test", domain="example.com", version="0"), rest)


@pytest.mark.parametrize("flags", [(), ("--restrictedNamespace", "team-a", "--enable-webhooks")])
def test_one_controller_per_kind_and_their_cache_options(flags: tuple[str, ...]) -> None:
    operator = _operator(*flags)

    controllers = [r for r in operator.manager.runnables if isinstance(r, Controller)]
    assert sorted(c.name for c in controllers) == [
        "dynamocomponent",
        "dynamocomponentdeployment",
        "dynamographdeployment",
        "dynamographdeploymentscalingadapter",
        "dynamomodel",
    ]
    cache = operator.manager.cache
    assert isinstance(cache, Cache)
    for kind in (GRAPH, COMPONENT, MODEL, SCALING_ADAPTER, POD, PERSISTENT_VOLUME_CLAIM):
        assert cache.find_informer(kind) is not None
    assert (cache.options(POD) or KindOptions()).label_selector == "nvidia.com/selector"
    # Only the builder Jobs, never every Job of the cluster.
    assert (cache.options(JOB) or KindOptions()).label_selector == (
        "nvidia.com/is-dynamo-image-builder=true"
    )


def test_a_served_optional_api_reaches_the_settings_and_the_cache() -> None:
    operator = _operator()
    served = next(r for r in operator.manager.runnables if type(r).__name__ == "ServedApis")
    lws = OPTIONAL_KINDS["lws"]

    for listener in served._listeners:
        listener(frozenset({lws.api_version}))

    assert operator.settings.available_apis == frozenset({"lws"})
    cache = operator.manager.cache
    assert isinstance(cache, Cache)
    assert cache.find_informer(lws) is not None
    assert cache.find_informer(OPTIONAL_KINDS["istio"]) is None


def test_the_secure_metrics_endpoint_names_its_self_signed_certificate_after_the_operator() -> None:
    operator = _operator("--metrics-secure")

    certificate = getattr(operator.manager.metrics_server, "certificate", None)
    assert isinstance(certificate, ServingCertificate)
    assert certificate.self_signed_name == "dynamo-operator-metrics"  # as before the move


@pytest.mark.anyio
async def test_what_waits_behind_what_follows_each_controllers_queue() -> None:
    """Pods first across graphs: a new graph or component is pod work; a component's Service
    pass is not, but a graph's progress waits behind it too (2,000 graphs' first pending
    statuses had gone out while the last Services were being written); graphs' own progress
    passes never hold each other back."""
    operator = _operator()
    controllers = {r.name: r for r in operator.manager.runnables if isinstance(r, Controller)}
    components = controllers["dynamocomponentdeployment"].queue
    graphs = controllers["dynamographdeployment"].queue
    deps = operator.deps

    def waiting() -> tuple[bool, bool]:
        return deps.pod_work_waiting(), deps.component_work_waiting()

    assert waiting() == (False, False)
    components.add(Request("ns", "g-frontend"), priority=LOW_PRIORITY)
    graphs.add(Request("ns", "g"), priority=LOW_PRIORITY)
    controllers["dynamomodel"].queue.add(Request("ns", "m"))
    assert waiting() == (False, True)

    components.done(await components.get())
    assert waiting() == (False, False)

    graphs.add(Request("ns", "g"))
    assert waiting() == (True, False)


def test_a_deployment_turning_ready_puts_its_component_ahead_of_the_queues_services() -> None:
    """Its status (and its graph's) is what a user waits for, yet it makes no pods, so it does
    not hold back the extra workers; the Deployment's other status changes ask for a report
    behind the queue's other work."""
    operator = _operator()
    controllers = {r.name: r for r in operator.manager.runnables if isinstance(r, Controller)}
    components = controllers["dynamocomponentdeployment"].queue
    cache = operator.manager.cache
    assert isinstance(cache, Cache)
    deployments = cache.get_informer(DEPLOYMENT)
    owner = {"apiVersion": COMPONENT.api_version, "kind": COMPONENT.kind, "controller": True}
    status = {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1}

    def deployment(version: int, **more: Any) -> dict[str, Any]:
        metadata = {
            "name": "g-web",
            "namespace": "ns",
            "generation": 1,
            "resourceVersion": str(version),
            "labels": {"nvidia.com/selector": "g-web"},
            "ownerReferences": [{**owner, "name": "g-web", "uid": "dcd-uid"}],
        }
        return {
            **DEPLOYMENT_TYPE,
            "metadata": metadata,
            "spec": {"replicas": 1},
            "status": {**status, **more},
        }

    deployments.replace([deployment(1)], "1")
    assert components.queued_at_or_above(LOW_PRIORITY) == 0  # its component made it

    deployments.apply(WatchEvent("MODIFIED", deployment(2, readyReplicas=1)))
    assert components.queued_at_or_above(LOW_PRIORITY) == 1
    assert components.queued_at_or_above(WORKLOAD_READY_PRIORITY) == 0

    available = {"availableReplicas": 1, "conditions": [{"type": "Available", "status": "True"}]}
    deployments.apply(WatchEvent("MODIFIED", deployment(3, readyReplicas=1, **available)))
    assert components.queued_at_or_above(WORKLOAD_READY_PRIORITY) == 1
    assert components.queued_at_or_above(DEFAULT_PRIORITY) == 0
    assert not operator.deps.pod_work_waiting()
