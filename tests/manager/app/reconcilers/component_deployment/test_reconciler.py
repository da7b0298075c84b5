"""The component reconciler's pods-first pass over a hand-filled cache and a recording client
(the e2e suite runs the reconciler against a real API server through `dynamo-operator run`)."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from dynamo_operator.settings import OperatorSettings
from manager.app.kinds import COMPONENT, DYNAMO_COMPONENT, OPTIONAL_KINDS
from manager.app.reconcilers.component_deployment.reconciler import (
    LATER,
    ComponentDeploymentReconciler,
    ComponentKinds,
)
from manager.app.reconcilers.component_deployment.setup import CHILDREN
from manager.runtime.cache import Cache
from manager.runtime.client import Client, KindRegistry
from manager.runtime.controller import Request, Result
from manager.runtime.controller.reconcile import taken_at
from manager.runtime.identity import Identity
from manager.runtime.kinds import (
    DEPLOYMENT,
    POD,
    ROLE,
    ROLE_BINDING,
    SECRET,
    SERVICE,
    SERVICE_ACCOUNT,
)
from manager.runtime.workqueue import LOW_PRIORITY
from tests.manager.runtime.fakes import FakeRecorder

pytestmark = pytest.mark.anyio

IDENTITY = Identity.for_product("test-operator", domain="example.com", version="0")
SETTINGS = OperatorSettings(etcd_addr="etcd:2379")  # no discovery account to make
DCD = {
    "apiVersion": COMPONENT.api_version,
    "kind": COMPONENT.kind,
    "metadata": {"name": "web", "namespace": "ns", "uid": "dcd-uid", "generation": 1},
    "spec": {
        "componentType": "frontend",
        "replicas": 1,
        "extraPodSpec": {"mainContainer": {"image": "registry.example/frontend:1"}},
    },
}


class RecordingClient:
    """The real compare-before-apply over an `apply` that answers as the API server would."""

    def __init__(self) -> None:
        self.identity = IDENTITY
        self.kinds = KindRegistry()
        for kind in (*CHILDREN, *OPTIONAL_KINDS.values(), COMPONENT):
            self.kinds.add(kind)
        self.applied: list[str] = []
        self.objects: dict[str, dict[str, Any]] = {}
        self.statuses: list[dict[str, Any]] = []
        self._versions = itertools.count(1)

    def kind_of(self, obj: Mapping[str, Any]) -> Any:
        return self.kinds.kind_of(obj)

    apply_if_changed = Client.apply_if_changed
    needs_apply = Client.needs_apply
    _delete_if_immutable_changed = Client._delete_if_immutable_changed
    _clear_server_defaults = Client._clear_server_defaults

    async def apply(self, obj: dict[str, Any], field_manager: str | None = None) -> dict[str, Any]:
        self.applied.append(f"{obj['kind']}/{obj['metadata']['name']}")
        self.objects[self.applied[-1]] = obj
        answer = copy.deepcopy(obj)
        answer["metadata"]["resourceVersion"] = str(next(self._versions))
        return answer

    async def create(self, obj: dict[str, Any], field_manager: str | None = None) -> dict[str, Any]:
        return await self.apply(obj)  # a POST answers as an apply does

    async def _adopt_created_fields(self, live: Mapping[str, Any]) -> None:
        """Nothing to adopt: this server keeps no managedFields."""

    async def apply_status_if_changed(
        self, status: Mapping[str, Any], live: Mapping[str, Any]
    ) -> bool:
        self.statuses.append(dict(status))
        return True


def reconciler(
    pod_work_waiting: bool,
    settings: OperatorSettings = SETTINGS,
    dcd: Mapping[str, Any] = DCD,
    live: tuple[dict[str, Any], ...] = (),
    services: tuple[dict[str, Any], ...] = (),
    api_missing: Callable[[], None] = lambda: None,
    collector_holds: bool = False,
) -> tuple[ComponentDeploymentReconciler, RecordingClient]:
    cache = Cache(None)
    cache.register(COMPONENT).replace([copy.deepcopy(dict(dcd))], "1")
    cache.register(DEPLOYMENT).replace(list(live), "1")
    cache.register(SERVICE).replace(list(services), "1")
    for kind in (*CHILDREN, POD, SECRET, ROLE, DYNAMO_COMPONENT, *OPTIONAL_KINDS.values()):
        if kind not in (DEPLOYMENT, SERVICE):
            cache.register(kind).replace([], "1")
    for kind in (SERVICE_ACCOUNT, ROLE_BINDING):
        cache.register(kind).replace([], "1")
    client = RecordingClient()
    made = ComponentDeploymentReconciler(
        client=client,  # type: ignore[arg-type]
        reader=cache.reader,
        recorder=FakeRecorder(),  # type: ignore[arg-type]
        kinds=ComponentKinds(
            component=COMPONENT,
            children=(*CHILDREN, *OPTIONAL_KINDS.values()),
            dynamo_component=DYNAMO_COMPONENT,
        ),
        settings=lambda: settings,
        now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
        pod_work_waiting=lambda: pod_work_waiting,
        api_missing=api_missing,
        collector_holds=lambda _dcd: collector_holds,
    )
    return made, client


async def test_while_other_pods_wait_to_be_made_a_pass_makes_only_the_workload() -> None:
    made, client = reconciler(pod_work_waiting=True)

    result = await made.reconcile(Request("ns", "web"))

    assert client.applied == ["Deployment/web"]
    assert client.statuses == []
    assert result == Result(requeue_after=LATER, priority=LOW_PRIORITY)


async def test_a_component_the_garbage_collector_cannot_see_yet_writes_nothing_yet() -> None:
    made, client = reconciler(pod_work_waiting=False, collector_holds=True)

    result = await made.reconcile(Request("ns", "web"))

    assert client.applied == []
    assert client.statuses == []
    assert result is None, "the collector's sighting of it queues it again"


async def test_the_low_priority_pass_does_the_rest_even_while_pod_work_waits() -> None:
    made, client = reconciler(pod_work_waiting=True)

    with taken_at(LOW_PRIORITY):
        await made.reconcile(Request("ns", "web"))

    assert sorted(client.applied) == ["Deployment/web", "Service/web"]


async def test_with_nothing_else_waiting_one_pass_does_everything() -> None:
    made, client = reconciler(pod_work_waiting=False)

    result = await made.reconcile(Request("ns", "web"))

    assert sorted(client.applied) == ["Deployment/web", "Service/web"]
    # Its first status, pending, waits a few seconds (the progress throttle), then behind any
    # more urgent work: a report of progress makes no pods.
    assert result == Result(requeue_after=5.0, priority=LOW_PRIORITY)


async def _ready_children() -> dict[str, dict[str, Any]]:
    """The children a pass writes for `DCD`, its Deployment since made ready."""
    first, written = reconciler(pod_work_waiting=False)
    await first.reconcile(Request("ns", "web"))
    deployment = {
        **written.objects["Deployment/web"],
        "status": {
            "conditions": [{"type": "Available", "status": "True"}],
            "replicas": 1,
            "updatedReplicas": 1,
            "readyReplicas": 1,
            "availableReplicas": 1,
            "observedGeneration": 1,
        },
    }
    deployment["metadata"] = {**deployment["metadata"], "generation": 1}
    return {**written.objects, "Deployment/web": deployment}


async def test_with_only_its_status_left_to_write_a_component_reports_while_pod_work_waits() -> (
    None
):
    """Its Service written by an earlier pass, its Deployment now available: the status its
    graph waits for does not queue behind other components' Services."""
    children = await _ready_children()
    made, client = reconciler(
        pod_work_waiting=True,
        live=(children["Deployment/web"],),
        services=(children["Service/web"],),
    )

    result = await made.reconcile(Request("ns", "web"))

    assert client.applied == []
    assert [status["conditions"][0]["status"] for status in client.statuses] == ["True"]
    assert result is None or result.priority != LOW_PRIORITY


async def test_a_component_whose_pods_are_made_writes_its_service_and_reports_at_once() -> None:
    """Its Deployment turned ready before its low-priority pass came (the Services of 2,000
    components ahead of it): that pass would have left its status, and its graph's, for last."""
    ready = (await _ready_children())["Deployment/web"]
    made, client = reconciler(pod_work_waiting=True, live=(ready,))

    result = await made.reconcile(Request("ns", "web"))

    assert client.applied == ["Service/web"]
    assert [status["conditions"][0]["status"] for status in client.statuses] == ["True"]
    assert result is None or result.priority != LOW_PRIORITY


KUBERNETES_DISCOVERY = OperatorSettings(discovery_cluster_role_name="discovery")
GRAPH_DCD = {
    **DCD,
    "metadata": {
        **DCD["metadata"],
        "name": "g-web",
        "ownerReferences": [
            {
                "apiVersion": "nvidia.com/v1alpha1",
                "kind": "DynamoGraphDeployment",
                "name": "g",
                "uid": "graph-uid",
                "controller": True,
            }
        ],
    },
}


async def test_a_new_component_runs_as_its_namespaces_discovery_account() -> None:
    made, client = reconciler(False, KUBERNETES_DISCOVERY, GRAPH_DCD)

    await made.reconcile(Request("ns", "g-web"))

    account = client.objects["ServiceAccount/dynamo-k8s-discovery"]
    assert "ownerReferences" not in account["metadata"]  # the namespace's graphs share it
    assert "RoleBinding/dynamo-k8s-discovery-binding" in client.applied
    pod = client.objects["Deployment/g-web"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "dynamo-k8s-discovery"


async def test_pods_running_as_their_graphs_own_account_keep_it() -> None:
    """An earlier release made one account per graph: its pods keep it (no rollout), and it
    stays its graph's."""
    pods_on_graph_account = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "g-web",
            "namespace": "ns",
            "ownerReferences": [{"kind": COMPONENT.kind, "name": "g-web", "uid": "dcd-uid"}],
        },
        "spec": {"template": {"spec": {"serviceAccountName": "g-k8s-service-discovery"}}},
    }
    made, client = reconciler(False, KUBERNETES_DISCOVERY, GRAPH_DCD, (pods_on_graph_account,))

    await made.reconcile(Request("ns", "g-web"))

    assert "ServiceAccount/dynamo-k8s-discovery" not in client.applied
    account = client.objects["ServiceAccount/g-k8s-service-discovery"]
    assert [owner["uid"] for owner in account["metadata"]["ownerReferences"]] == ["graph-uid"]
    pod = client.objects["Deployment/g-web"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "g-k8s-service-discovery"


async def test_pods_running_as_another_account_make_no_discovery_account() -> None:
    """A planner runs as the planner's account: a namespace of planners alone (or a graph an
    earlier release made, whose planner's pods never ran as its discovery account) gets none."""
    planner = copy.deepcopy(GRAPH_DCD)
    planner["spec"]["componentType"] = "planner"
    made, client = reconciler(False, KUBERNETES_DISCOVERY, planner)

    await made.reconcile(Request("ns", "g-web"))

    assert "Deployment/g-web" in client.applied
    assert not [name for name in client.applied if "discovery" in name]


async def test_a_multinode_component_without_leader_worker_sets_asks_to_look_again() -> None:
    """The LeaderWorkerSet CRD may have been installed since the last look: the component
    asks API discovery to check soon rather than wait minutes."""
    asked: list[str] = []
    multinode = {
        **DCD,
        "spec": {
            **DCD["spec"],
            "componentType": "worker",
            "backendFramework": "vllm",
            "multinode": {"nodeCount": 2},
        },
    }
    made, _ = reconciler(
        pod_work_waiting=False,
        settings=OperatorSettings(etcd_addr="etcd:2379", available_apis=frozenset()),
        dcd=multinode,
        api_missing=lambda: asked.append("lws"),
    )

    await made.reconcile(Request("ns", "web"))

    assert asked == ["lws"]
