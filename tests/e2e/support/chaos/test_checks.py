from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from dynamo_operator.constants import Labels
from dynamo_operator.naming import base_model_hash
from dynamo_operator.settings import OperatorSettings
from e2e.support.chaos import specs
from e2e.support.chaos.checks import (
    LWS_NAME_LABEL,
    LWS_STALL_AFTER,
    EndState,
    _check_model,
    _graphs_with_stalled_lws,
    leaked_pods,
    spec_model_pods,
    stalled_lws,
)
from e2e.support.chaos.expected import expected_children
from manager.runtime.kinds import ResourceKind

SETTINGS = OperatorSettings(available_apis=frozenset({"lws"}))
NAMESPACE = "ns"
HASH = base_model_hash(specs.BASE_MODEL)


def _serving(template: Mapping[str, Any]) -> bool:
    labels = (template.get("metadata") or {}).get("labels") or {}
    return labels.get(Labels.BASE_MODEL_HASH) == HASH


def endpoints_the_builders_make(graphs: list[dict[str, Any]]) -> int:
    """The pods behind the base model's Service, read off the workloads the builders render."""
    children = expected_children(NAMESPACE, [*graphs, specs.base_model(NAMESPACE)], SETTINGS)
    count = 0
    for (kind, _), obj in children.items():
        spec = obj.get("spec") or {}
        if kind == "Deployment":
            count += spec.get("replicas", 1) * _serving(spec["template"])
        elif kind == "LeaderWorkerSet":
            group = spec["leaderWorkerTemplate"]
            size = group.get("size", 1)
            leader = group.get("leaderTemplate") or group["workerTemplate"]
            count += spec.get("replicas", 1) * (
                _serving(leader) + (size - 1) * _serving(group["workerTemplate"])
            )
    return count


def serving_graph(index: int, *, multinode: int | None, replicas: int) -> dict[str, Any]:
    graph = specs.initial_graph(index, NAMESPACE)
    worker = graph["spec"]["services"]["Worker"]
    worker["modelRef"] = {"name": specs.BASE_MODEL}
    worker["replicas"] = replicas
    if multinode:
        worker["multinode"] = {"nodeCount": multinode}
    return graph


@pytest.mark.parametrize(("multinode", "replicas"), [(None, 1), (None, 2), (2, 1), (3, 2)], ids=str)
def test_the_expected_count_is_what_the_builders_put_behind_the_service(
    multinode: int | None, replicas: int
) -> None:
    # A multinode replica is one endpoint (its leader), not nodeCount of them.
    graphs = [
        serving_graph(2, multinode=multinode, replicas=replicas),
        serving_graph(6, multinode=None, replicas=1),
    ]
    assert spec_model_pods(graphs) == endpoints_the_builders_make(graphs) == replicas + 1


def test_the_chaos_graphs_count_their_modelref_workers() -> None:
    graphs = [specs.initial_graph(index, NAMESPACE) for index in range(20)]
    assert spec_model_pods(graphs) == endpoints_the_builders_make(graphs) == 5


def owned(name: str, owner_uid: str | None, kind: str, **extra: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "uid": f"uid-{name}", **extra}
    if owner_uid is not None:
        metadata["ownerReferences"] = [
            {"kind": kind, "name": "owner", "uid": owner_uid, "controller": True}
        ]
    return {"metadata": metadata}


def pod(
    name: str,
    owner_uid: str | None,
    *,
    kind: str = "ReplicaSet",
    ready: bool = True,
    deleting: bool = False,
) -> dict[str, Any]:
    extra: dict[str, Any] = {"labels": {Labels.BASE_MODEL_HASH: HASH}}
    if deleting:
        extra["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    obj = owned(name, owner_uid, kind, **extra)
    status = "True" if ready else "False"
    return {**obj, "status": {"conditions": [{"type": "Ready", "status": status}]}}


def by_uid(*objects: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {obj["metadata"]["uid"]: obj for obj in objects}


def test_only_ready_pods_with_a_vanished_owner_up_their_chain_are_leaks() -> None:
    deployment = owned("deploy", "uid-dcd", "DynamoComponentDeployment")
    live_rs = owned("rs", "uid-deploy", "Deployment")
    rs_of_gone_deployment = owned("rs-old", "uid-gone-deploy", "Deployment")
    leader = pod("leader", "uid-lws-sts", kind="StatefulSet")
    lws_sts = owned("lws-sts", "uid-gone-lws", "LeaderWorkerSet")
    pods = [
        pod("live", "uid-rs"),
        pod("of-a-gone-rs", "uid-gone-rs"),
        pod("of-a-gone-sts", "uid-gone-sts", kind="StatefulSet"),
        pod("of-a-gone-deployment", "uid-rs-old"),
        leader,
        pod("not-ready", "uid-gone-rs", ready=False),
        pod("terminating", "uid-gone-rs", deleting=True),
        pod("bare", None),
        pod("of-another-kind", "uid-gone-job", kind="Job"),
    ]
    live = by_uid(deployment, live_rs, rs_of_gone_deployment, lws_sts, leader)
    assert leaked_pods(pods, live) == [
        "leader",
        "of-a-gone-deployment",
        "of-a-gone-rs",
        "of-a-gone-sts",
    ]
    # Up to the operator's children and no further: their owners are the audit's business.
    assert leaked_pods([pod("live", "uid-rs")], live) == []


NOW = datetime(2026, 11, 27, 3, 0, tzinfo=UTC)


def lws(name: str, *, replicas: int = 1, size: int = 2, ready: int = 0) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {"replicas": replicas, "leaderWorkerTemplate": {"size": size}},
        "status": {"replicas": replicas, "readyReplicas": ready} if ready else {},
    }


def lws_pod(group: str, name: str, *, ready_for: timedelta | None) -> dict[str, Any]:
    conditions = (
        [{"type": "Ready", "status": "False"}]
        if ready_for is None
        else [
            {
                "type": "Ready",
                "status": "True",
                "lastTransitionTime": (NOW - ready_for).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        ]
    )
    return {
        "metadata": {"name": name, "labels": {LWS_NAME_LABEL: group}},
        "status": {"conditions": conditions},
    }


def test_a_lws_is_stalled_only_when_all_its_pods_are_long_ready_and_its_status_lags() -> None:
    long = LWS_STALL_AFTER + timedelta(seconds=1)
    pods = [
        *(lws_pod("stalled", f"stalled-{i}", ready_for=long) for i in range(2)),
        *(lws_pod("caught-up", f"caught-up-{i}", ready_for=long) for i in range(2)),
        lws_pod("just-ready", "just-ready-0", ready_for=long),
        lws_pod("just-ready", "just-ready-1", ready_for=timedelta(seconds=5)),
        lws_pod("starting", "starting-0", ready_for=long),
        lws_pod("starting", "starting-1", ready_for=None),
        lws_pod("short", "short-0", ready_for=long),  # its second pod is not there yet
    ]
    lwss = [
        lws("stalled"),
        lws("caught-up", ready=1),
        lws("just-ready"),
        lws("starting"),
        lws("short"),
    ]
    assert stalled_lws(lwss, pods, NOW) == ["stalled"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class FakeRest:
    """`list_all` and `get` over fixed objects: what `_check_model` reads."""

    def __init__(self, objects: dict[str, list[dict[str, Any]]]) -> None:
        self.objects = objects

    async def list_all(
        self, kind: ResourceKind, namespace: str | None, *, label_selector: str | None = None
    ) -> tuple[list[dict[str, Any]], str]:
        items = self.objects.get(kind.kind, [])
        if label_selector is not None:
            key, equals, value = label_selector.partition("=")
            items = [
                i
                for i in items
                if (i["metadata"].get("labels", {}).get(key) == value)
                or (not equals and key in i["metadata"].get("labels", {}))
            ]
        return copy.deepcopy(items), "1"

    async def get(self, kind: ResourceKind, namespace: str, name: str) -> dict[str, Any]:
        [obj] = [o for o in self.objects[kind.kind] if o["metadata"]["name"] == name]
        return copy.deepcopy(obj)


def model(ready: int) -> dict[str, Any]:
    return {
        "metadata": {"name": specs.MODEL_NAME, "generation": 1},
        "status": {"observedGeneration": 1, "readyEndpoints": ready, "totalEndpoints": ready},
    }


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("counted", "off"), [(2, False), (1, True), (3, True)], ids=["with-leak", "spec-only", "more"]
)
async def test_the_model_must_count_the_spec_pods_and_the_leaked_ones(
    counted: int, off: bool
) -> None:
    # The seed-7 failure: a recreated graph's old ReplicaSet is gone, its pods are not.
    graphs = [serving_graph(2, multinode=None, replicas=1)]
    rest = FakeRest(
        {
            "Pod": [pod("g-0002-worker-new", "uid-rs"), pod("g-0002-worker-old", "uid-rs-old")],
            "ReplicaSet": [owned("rs", "uid-deploy", "Deployment")],
            "Deployment": [owned("deploy", "uid-dcd", "DynamoComponentDeployment")],
            "DynamoModel": [model(counted)],
        }
    )
    state = EndState()
    await _check_model(rest, NAMESPACE, graphs, state)  # type: ignore[arg-type]
    assert state.gc_leaks == [f"{NAMESPACE}/g-0002-worker-old"]
    assert bool(state.models_off) == off
    assert "gc leaks 1" in state.summary()


def child(kind: str, name: str, controller: str, **fields: Any) -> dict[str, Any]:
    reference = {"name": controller, "controller": True}
    metadata = {"name": name, "generation": 1, "ownerReferences": [reference]}
    return {"kind": kind, **fields, "metadata": metadata}


def deployment(name: str, *, available: int) -> dict[str, Any]:
    status = {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1}
    status["availableReplicas"] = available
    return child("Deployment", name, name, spec={"replicas": 1}, status=status)


@pytest.mark.anyio
async def test_a_graph_is_an_lws_stall_only_when_nothing_else_keeps_it_pending() -> None:
    ready_for = LWS_STALL_AFTER + timedelta(minutes=1) + (NOW - datetime.now(UTC))
    pods = [
        lws_pod(group, f"{group}-{i}", ready_for=ready_for)
        for group in ("a-decode-0", "b-decode-0")
        for i in range(2)
    ]
    children = [
        *(
            child("DynamoComponentDeployment", f"{graph}-{service}", graph)
            for graph in ("a", "b")
            for service in ("decode", "frontend")
        ),
        child("LeaderWorkerSet", "a-decode-0", "a-decode", **lws("a-decode-0")),
        child("LeaderWorkerSet", "b-decode-0", "b-decode", **lws("b-decode-0")),
        deployment("a-frontend", available=1),
        deployment("b-frontend", available=0),  # b is pending for its frontend too
    ]
    rest = FakeRest({"Pod": pods})
    stalled = await _graphs_with_stalled_lws(rest, NAMESPACE, children)  # type: ignore[arg-type]
    assert stalled == {"a"}
