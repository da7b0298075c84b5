"""The end checks of a chaos run, read from the API server: does the cluster match the user's
last word? Every graph `successful` for its latest generation, its children exactly what the
builders make of its last spec (`expected.audit`), every DynamoModel counting the pods of the
components serving its base model, and every PVC the one the operator first created in that
namespace (`PvcLedger`).

A DynamoModel counts the ready pods behind its base model's Service, whoever made them; the pods
the user's specs ask for are not always all of them. kube-controller-manager's garbage collector
can leak workloads for good: when a graph is recreated, its Deployments come back with the same
names and make ReplicaSets of the same names (same template, same hash); if an old object's
deletion and its namesake's creation both fall in a watch gap (an API server restart), the GC's
informer relists and sees one update instead of a deletion, so its graph, keyed by uid, keeps the
old object for ever and never collects its dependents (a fresh controller-manager collects them
at once). Seen both ways under seed 7: the pods of a vanished ReplicaSet, and a ReplicaSet (with
its pod) of a vanished Deployment. Such pods (`gc_leaks`: an owner up their controller chain that
no longer exists) are the control plane's, not the operator's: the model must count them too,
and the end state reports them.

lws-controller (v0.7.0) can miss its StatefulSets' and pods' readiness across an API server
restart: a LeaderWorkerSet keeps saying no group is ready while every pod of it has been Ready
for minutes, and catches up the moment anything touches the object (seen in 200-graph runs, a
namespace's multinode graphs at a time). The operator rightly reports such a graph `pending`
("0 of 1 groups ready", from the LeaderWorkerSet's status). Such graphs (`lws_stalls`: seen by
the operator at their latest generation, with a LeaderWorkerSet whose pods have all been Ready
for `LWS_STALL_AFTER` but whose status lags them) are the third-party controller's, not lost
updates; the end state reports them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from dynamo_operator.constants import Labels
from dynamo_operator.naming import base_model_hash
from dynamo_operator.settings import OperatorSettings
from e2e.localcluster import condition
from e2e.support.chaos import specs
from e2e.support.chaos.expected import COMPARED_KINDS, Findings, Key, audit, expected_children
from e2e.support.chaos.user import ChaosUser
from e2e.support.graphs import controller_of, is_converged, is_pod_ready
from e2e.support.kinds import COMPONENT, GRAPH, LEADER_WORKER_SET, MODEL, ROLE, ROLE_BINDING
from manager.runtime.client import RestClient
from manager.runtime.kinds import (
    DEPLOYMENT,
    PERSISTENT_VOLUME_CLAIM,
    POD,
    SERVICE,
    SERVICE_ACCOUNT,
    ResourceKind,
)

CHILD_KINDS: tuple[ResourceKind, ...] = (
    COMPONENT,
    DEPLOYMENT,
    LEADER_WORKER_SET,
    SERVICE,
    PERSISTENT_VOLUME_CLAIM,
    SERVICE_ACCOUNT,
    ROLE,
    ROLE_BINDING,
)
assert {kind.kind for kind in CHILD_KINDS} <= COMPARED_KINDS
REPLICA_SET = ResourceKind("apps/v1", "ReplicaSet", "replicasets", namespaced=True)
STATEFUL_SET = ResourceKind("apps/v1", "StatefulSet", "statefulsets", namespaced=True)
WORKLOAD_KINDS: tuple[ResourceKind, ...] = (
    POD,
    REPLICA_SET,
    STATEFUL_SET,
    DEPLOYMENT,
    LEADER_WORKER_SET,
)
"""The controller chain of a worker pod, up to the operator's children: a Deployment's
ReplicaSet, a LeaderWorkerSet's StatefulSets (a worker group's is owned by its leader pod). An
owner of one of these kinds that is gone leaks everything below it; the operator's children
(Deployments, LeaderWorkerSets) and their owners are the audit's business."""
LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
LWS_STALL_AFTER = timedelta(seconds=60)
"""How long every pod of a LeaderWorkerSet must have been Ready, its status still lagging, for
the lag to be lws-controller's stall rather than its ordinary delay."""


@dataclass
class PvcLedger:
    """The uid each PVC had when first seen, per namespace incarnation."""

    first: dict[tuple[str, int, str], str] = field(default_factory=dict)

    def note(self, namespace: str, generation: int, claims: list[dict[str, Any]]) -> None:
        for claim in claims:
            key = (namespace, generation, claim["metadata"]["name"])
            self.first.setdefault(key, claim["metadata"]["uid"])

    def replaced(self, namespace: str, generation: int, claims: list[dict[str, Any]]) -> list[str]:
        return [
            f"{namespace}/{claim['metadata']['name']}"
            for claim in claims
            if self.first.get((namespace, generation, claim["metadata"]["name"]))
            not in (None, claim["metadata"]["uid"])
        ]


@dataclass
class EndState:
    findings: Findings = field(default_factory=Findings)
    not_converged: list[str] = field(default_factory=list)
    models_off: list[str] = field(default_factory=list)
    pvcs_replaced: list[str] = field(default_factory=list)
    pvcs: int = 0
    gc_leaks: list[str] = field(default_factory=list)
    """Ready pods of a base model whose controller (ReplicaSet, StatefulSet) no longer exists:
    left by kube-controller-manager's garbage collector (see the module doc), reported, and
    counted by the model check as the model counts them."""
    lws_stalls: list[str] = field(default_factory=list)
    """Graphs pending only for a LeaderWorkerSet whose status lags its long-ready pods:
    lws-controller's, reported apart from the lost updates (see the module doc)."""

    def is_clean(self) -> bool:
        return (
            self.findings.is_clean()
            and not self.not_converged
            and not self.models_off
            and not self.pvcs_replaced
        )

    @property
    def lost_updates(self) -> int:
        """Graphs not reflecting their last edit: not converged for their latest generation, or
        a child differing from what the builders make of the last spec."""
        return len(self.not_converged) + len(self.findings.stale)

    def summary(self) -> str:
        return (
            f"{self.findings.summary()}; not converged {len(self.not_converged)} "
            f"{self.not_converged[:5]}; models {self.models_off[:5]}; "
            f"pvcs replaced {self.pvcs_replaced[:5]}; gc leaks {len(self.gc_leaks)} "
            f"{self.gc_leaks[:5]}; lws stalls {len(self.lws_stalls)} {self.lws_stalls[:5]}"
        )


async def read_end_state(
    rest: RestClient, user: ChaosUser, settings: OperatorSettings, pvcs: PvcLedger
) -> EndState:
    state = EndState()
    for namespace in user.namespaces:
        await _check_namespace(rest, user, namespace, settings, pvcs, state)
    return state


async def note_pvcs(rest: RestClient, user: ChaosUser, pvcs: PvcLedger) -> None:
    for namespace in user.namespaces:
        claims, _ = await rest.list_all(PERSISTENT_VOLUME_CLAIM, namespace)
        pvcs.note(namespace, user.namespace_generation.get(namespace, 0), claims)


async def _check_namespace(
    rest: RestClient,
    user: ChaosUser,
    namespace: str,
    settings: OperatorSettings,
    pvcs: PvcLedger,
    state: EndState,
) -> None:
    graphs = [user.graphs[index] for index in user.indexes_in(namespace)]
    documents = [*graphs, specs.base_model(namespace)]
    expected = expected_children(namespace, documents, settings)
    live_graphs, _ = await rest.list_all(GRAPH, namespace)
    actual: list[dict[str, Any]] = []
    for kind in CHILD_KINDS:
        items, _ = await rest.list_all(kind, namespace)
        actual += [{**item, "kind": kind.kind} for item in items]
    live = [*actual, *({**graph, "kind": GRAPH.kind} for graph in live_graphs)]
    live_uids: dict[Key, str] = {
        (obj["kind"], obj["metadata"]["name"]): obj["metadata"]["uid"] for obj in live
    }
    state.findings.extend(audit(namespace, expected, actual, live_uids))
    wanted = {graph["metadata"]["name"] for graph in graphs}
    stalled = await _graphs_with_stalled_lws(rest, namespace, actual)
    for graph in live_graphs:
        name = graph["metadata"]["name"]
        if name not in wanted:
            state.findings.duplicates.append(f"{namespace}/{GRAPH.kind}/{name}")
        elif is_converged(graph):
            continue
        elif name in stalled and _observed_latest(graph):
            state.lws_stalls.append(f"{namespace}/{name}")
        else:
            state.not_converged.append(f"{namespace}/{name}")
    missing = wanted - {graph["metadata"]["name"] for graph in live_graphs}
    state.findings.missing += [f"{namespace}/{GRAPH.kind}/{name}" for name in sorted(missing)]
    await _check_model(rest, namespace, graphs, state)
    claims = [obj for obj in actual if obj["kind"] == PERSISTENT_VOLUME_CLAIM.kind]
    generation = user.namespace_generation.get(namespace, 0)
    pvcs.note(namespace, generation, claims)
    state.pvcs += len(claims)
    state.pvcs_replaced += pvcs.replaced(namespace, generation, claims)


async def _check_model(
    rest: RestClient, namespace: str, graphs: Sequence[Mapping[str, Any]], state: EndState
) -> None:
    """The namespace's base model counts every pod of the services serving it, all ready, and
    the ready pods the garbage collector leaked behind the same Service."""
    labels = f"{Labels.BASE_MODEL_HASH}={base_model_hash(specs.BASE_MODEL)}"
    pods, _ = await rest.list_all(POD, namespace, label_selector=labels)
    live: dict[str, Mapping[str, Any]] = {}
    for kind in WORKLOAD_KINDS:
        items, _ = await rest.list_all(kind, namespace)
        live |= {item["metadata"]["uid"]: {**item, "kind": kind.kind} for item in items}
    leaked = leaked_pods(pods, live)
    state.gc_leaks += [f"{namespace}/{name}" for name in leaked]
    expected = spec_model_pods(graphs) + len(leaked)
    model = await rest.get(MODEL, namespace, specs.MODEL_NAME)
    status = model.get("status") or {}
    seen = (
        status.get("observedGeneration") == model["metadata"].get("generation"),
        status.get("readyEndpoints"),
        status.get("totalEndpoints"),
    )
    if seen != (True, expected, expected):
        leaks = f" ({len(leaked)} leaked by the GC)" if leaked else ""
        state.models_off.append(
            f"{namespace}: (observed, ready, total) {seen}, pods {expected}{leaks}"
        )


def spec_model_pods(graphs: Sequence[Mapping[str, Any]]) -> int:
    """How many of the specs' pods stand behind the base model's Service: one per replica of
    each service with that modelRef. A multinode replica is one endpoint, its leader: the
    builders label only the leader (`serving_pod_metadata`), its workers are reached through it,
    so `nodeCount` does not multiply."""
    return sum(
        service.get("replicas", 1)
        for graph in graphs
        for service in graph["spec"]["services"].values()
        if (service.get("modelRef") or {}).get("name") == specs.BASE_MODEL
    )


def leaked_pods(
    pods: Sequence[Mapping[str, Any]], live: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """The names of the ready pods (endpoints a model counts) with a vanished owner up their
    controller chain: a controller of a `WORKLOAD_KINDS` kind whose uid is not in `live` (the
    live objects of those kinds, by uid)."""
    return sorted(
        pod["metadata"]["name"]
        for pod in pods
        if not pod["metadata"].get("deletionTimestamp")
        and is_pod_ready(pod)
        and _orphaned(pod, live)
    )


def _orphaned(obj: Mapping[str, Any], live: Mapping[str, Mapping[str, Any]]) -> bool:
    kinds = {kind.kind for kind in WORKLOAD_KINDS}
    seen: set[str] = set()
    while True:
        controller = controller_of(obj)
        if controller is None or controller.get("kind") not in kinds:
            return False
        uid = str(controller.get("uid"))
        if uid in seen:
            return False
        seen.add(uid)
        owner = live.get(uid)
        if owner is None:
            return True
        obj = owner


async def _graphs_with_stalled_lws(
    rest: RestClient, namespace: str, children: Sequence[Mapping[str, Any]]
) -> set[str]:
    """The graphs (by name) owning, through a DCD, a LeaderWorkerSet `stalled_lws` names, and
    whose Deployments are all available: nothing else keeps them pending."""
    lwss = [obj for obj in children if obj["kind"] == LEADER_WORKER_SET.kind]
    if not lwss:
        return set()
    pods, _ = await rest.list_all(POD, namespace, label_selector=LWS_NAME_LABEL)
    stalled = set(stalled_lws(lwss, pods, datetime.now(UTC)))
    graph_of = {
        obj["metadata"]["name"]: _controller_name(obj)
        for obj in children
        if obj["kind"] == COMPONENT.kind
    }
    waiting = {
        graph_of.get(_controller_name(obj) or "")
        for obj in children
        if obj["kind"] == DEPLOYMENT.kind and not _available(obj)
    }
    return {
        graph
        for lws in lwss
        if lws["metadata"]["name"] in stalled
        and (graph := graph_of.get(_controller_name(lws) or "")) is not None
        and graph not in waiting
    }


def _available(deployment: Mapping[str, Any]) -> bool:
    status = deployment.get("status") or {}
    return bool(
        status.get("observedGeneration") == deployment["metadata"].get("generation")
        and status.get("availableReplicas", 0) >= (deployment.get("spec") or {}).get("replicas", 1)
        and status.get("updatedReplicas", 0) == status.get("replicas", 0)
    )


def stalled_lws(
    lwss: Sequence[Mapping[str, Any]], pods: Sequence[Mapping[str, Any]], now: datetime
) -> list[str]:
    """The LeaderWorkerSets whose status counts fewer ready groups than they have while all
    their pods (`replicas` x `size`) have been Ready for at least `LWS_STALL_AFTER`."""
    ready_since: dict[str, list[datetime]] = {}
    for pod in pods:
        labels = pod["metadata"].get("labels") or {}
        owner = labels.get(LWS_NAME_LABEL)
        since = None if pod["metadata"].get("deletionTimestamp") else _ready_since(pod)
        if owner and since is not None:
            ready_since.setdefault(owner, []).append(since)
    stalled = []
    for lws in lwss:
        spec, status = lws.get("spec") or {}, lws.get("status") or {}
        replicas = spec.get("replicas", 1)
        size = (spec.get("leaderWorkerTemplate") or {}).get("size", 1)
        name = lws["metadata"]["name"]
        moments = ready_since.get(name, [])
        if (
            status.get("readyReplicas", 0) < replicas
            and len(moments) == replicas * size
            and all(now - moment >= LWS_STALL_AFTER for moment in moments)
        ):
            stalled.append(name)
    return sorted(stalled)


def _ready_since(pod: Mapping[str, Any]) -> datetime | None:
    moment = condition(pod, "Ready").get("lastTransitionTime") if is_pod_ready(pod) else None
    return datetime.fromisoformat(moment.replace("Z", "+00:00")) if moment else None


def _controller_name(obj: Mapping[str, Any]) -> str | None:
    reference = controller_of(obj)
    return None if reference is None else str(reference.get("name"))


def _observed_latest(graph: Mapping[str, Any]) -> bool:
    status = graph.get("status") or {}
    return bool(status.get("observedGeneration") == graph["metadata"].get("generation"))
