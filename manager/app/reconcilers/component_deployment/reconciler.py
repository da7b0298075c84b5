"""The DynamoComponentDeployment reconciler: one component's workload, Service, routing, scaling.

Five steps per pass, each a call: read the DCD from the cache; validate it with the pure
validators (the webhook's rules: invalid is terminal until the spec changes); build its children
with the pure builders (Deployment or LeaderWorkerSets (+ PodGroups), Service, the base model's
headless Service, Ingress or VirtualService, HPA); apply what differs (first, with Kubernetes
discovery, the namespace's discovery account its pods run as: see `_ensure_discovery_access`) and
delete children that should no longer exist (a base model's Service is shared by the components
serving it: the cache's index of components by base model says who they are, and one that stops
serving it leaves it to the others); derive the status from the cached workloads and pods, write
it once if it changed, and emit an Event only on a transition.

Pods first: while other components' (or graphs') pod-making work is queued, a pass taken at
the default priority applies the discovery account and the workload only, and leaves the rest
(Services, routing, autoscaling, deletions, status) to a pass at `LOW_PRIORITY`, which the
queue hands out once nothing more urgent waits. Across hundreds of graphs converging, the
Deployments are written ahead of the Services and statuses of every graph; a lone component
does it all in one pass, and so does a component whose workload needs no write: its Deployment
turning ready wakes it at `WORKLOAD_READY_PRIORITY` (`setup.py`), and it writes its Service and
its status then, ahead of the Services of components whose pods are still on their way, since
its graph waits for that status. Only new or changed components (and graphs) count as
pod-making work: the others may be taken by the controller's extra workers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dynamo_operator.api import KIND_GRAPH_DEPLOYMENT, DynamoComponentDeployment
from dynamo_operator.builders import (
    BuildContext,
    BuildError,
    ComponentChildren,
    build_component_children,
    build_discovery_access,
    build_discovery_service_account,
    build_kept_discovery_account,
    discovery_owner,
    discovery_role_name,
    kept_discovery_account,
    pod_service_accounts,
)
from dynamo_operator.constants import DISCOVERY_ACCOUNT_NAME, Labels
from dynamo_operator.image_build import awaited_dynamo_component, on_built_image
from dynamo_operator.pull_secrets import build_pull_secret_index
from dynamo_operator.settings import OperatorSettings
from dynamo_operator.status import (
    ConditionTypes,
    Reasons,
    StatusFailure,
    TransitionEvents,
    Unsupported,
    derive_component_status,
    derive_transition_event,
    dynamo_component_gate,
    is_component_progress_only,
)
from dynamo_operator.validation import validate_cached
from manager.app.progress import PROGRESS_CAP, progress_throttle
from manager.app.reconcilers.component_deployment.model_services import (
    model_service_owners,
    release_model_services,
)
from manager.runtime.cache import CacheReader
from manager.runtime.client import ApiError, BadRequest, Client, Invalid
from manager.runtime.controller import Request, Result, taken_priority
from manager.runtime.events import EventRecorder
from manager.runtime.kinds import POD, ROLE, SECRET, ResourceKind
from manager.runtime.ownership import (
    ChildChanges,
    apply_children,
    is_namespace_terminating,
    is_owned_by,
    sync_children,
)
from manager.runtime.shared_objects import SharedObjects
from manager.runtime.status_report import StatusReport
from manager.runtime.workqueue import DEFAULT_PRIORITY, LOW_PRIORITY

__all__ = ["ComponentDeploymentReconciler", "ComponentKinds"]


@dataclass(frozen=True, slots=True)
class ComponentKinds:
    """The kinds this reconciler reads and writes, resolved by the composition root."""

    component: ResourceKind
    children: tuple[ResourceKind, ...]
    """Every kind a DCD may own (workloads, Service, Ingress, VirtualService, HPA)."""
    dynamo_component: ResourceKind
    """Where a DCD naming a built artifact without an image of its own finds that image."""


WORKLOAD_KINDS = frozenset({"Deployment", "LeaderWorkerSet"})
"""The children that run the component's pods (whose templates say which account they run as)."""
LATER = 0.1
"""Seconds before the low-priority pass of a component whose pods went first is queued (it
then waits behind every more urgent key)."""
EVENTS = TransitionEvents(
    ConditionTypes.AVAILABLE,
    ready_reason="Ready",
    ready_message="Component is available",
    warn_while_waiting=False,
)


class ComponentDeploymentReconciler:
    def __init__(
        self,
        *,
        client: Client,
        reader: CacheReader,
        recorder: EventRecorder,
        kinds: ComponentKinds,
        settings: Callable[[], OperatorSettings],
        now: Callable[[], datetime],
        pod_work_waiting: Callable[[], bool] = lambda: False,
        api_missing: Callable[[], None] = lambda: None,
        collector_holds: Callable[[Mapping[str, Any]], bool] = lambda _component: False,
    ) -> None:
        self._client = client
        self._reader = reader
        self._recorder = recorder
        self._kinds = kinds
        self._settings = settings
        self._now = now
        self._pod_work_waiting = pod_work_waiting
        self._api_missing = api_missing
        self._collector_holds = collector_holds
        self._status = StatusReport(
            client,
            recorder,
            progress_throttle(),
            busy=pod_work_waiting,
        )
        self._shared = SharedObjects(client, reader)

    async def reconcile(self, request: Request) -> Result | None:
        dcd = self._reader.get(self._kinds.component, request.namespace, request.name)
        if dcd is None or dcd["metadata"].get("deletionTimestamp"):
            return None  # garbage collection removes the children
        if self._collector_holds(dcd):
            return None  # its sighting by the garbage collector queues it (`CollectorView`)
        try:
            model = self._validate(dcd)
            context = self._build_context(dcd)
            children = build_component_children(model, context)
            if children.needs_unserved_api:
                self._api_missing()  # installed since the last look? (reported meanwhile)
            pods_first = self._pods_first(dcd, children)
            changes = await self._apply(dcd, children, context, workload_only=pods_first)
        except _Halt as halt:
            return await self._report(dcd, failure=halt.failure, failed=halt.failed)
        except (BuildError, Invalid, BadRequest) as error:
            # The spec passed our rules but cannot be built or is refused by the API server:
            # the user has to change it, so report it and wait for that change.
            return await self._report(dcd, failure=StatusFailure.reconcile_error(str(error)))
        if changes is None:
            return None  # the component goes with its namespace
        changes.announce(self._recorder, dcd)
        if pods_first:
            return Result(requeue_after=LATER, priority=LOW_PRIORITY)
        return await self._report(
            dcd,
            workloads=self._workloads(dcd, children, changes),
            pods=self._reader.list(POD, request.namespace, labels={Labels.SELECTOR: request.name}),
            unsupported=children.unsupported,
        )

    def _validate(self, dcd: Mapping[str, Any]) -> DynamoComponentDeployment:
        """The component's model, on its built image when it names a DynamoComponent; `_Halt`
        when the spec breaks a rule (terminal until it changes) or the image is not built yet."""
        validation = validate_cached(dcd)
        if not validation.allowed:
            raise _Halt(StatusFailure.invalid(validation))
        model = validation.model(DynamoComponentDeployment)
        if not (awaited := awaited_dynamo_component(model)):
            return model
        namespace = dcd["metadata"]["namespace"]
        gate = dynamo_component_gate(
            awaited, self._reader.get(self._kinds.dynamo_component, namespace, awaited)
        )
        if gate.failure is not None:
            raise _Halt(gate.failure)
        if gate.image is None:
            raise _Halt(
                StatusFailure(Reasons.DYNAMO_COMPONENT_NOT_READY, str(gate.waiting)), failed=False
            )
        return on_built_image(model, gate.image)

    def _build_context(self, dcd: Mapping[str, Any]) -> BuildContext:
        return BuildContext(
            settings=self._settings(),
            pull_secrets=build_pull_secret_index(
                self._reader.list(SECRET, dcd["metadata"]["namespace"])
            ),
            model_service_owners=model_service_owners(self._reader, self._kinds.component, dcd),
            kept_discovery_account=kept_discovery_account(dcd, self._live_workloads(dcd)),
        )

    def _live_workloads(self, dcd: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        metadata = dcd["metadata"]
        return [
            workload
            for kind in self._kinds.children
            if kind.kind in WORKLOAD_KINDS and self._reader.has_synced(kind)
            for workload in self._reader.list(
                kind, metadata["namespace"], owner_uid=metadata["uid"]
            )
        ]

    def _pods_first(self, dcd: Mapping[str, Any], children: ComponentChildren) -> bool:
        """Whether this pass makes only pods: it was taken before other pod-making work that
        is still queued (a pass taken at low priority had nothing more urgent waiting), it has
        pods to make (its workload differs), and its Service or routing has yet to be written.
        A component whose pods are made (its Deployment just turned ready, say) writes the rest
        and reports at once: what its graph waits for, which would otherwise wait behind every
        other component's Service."""
        if taken_priority() < DEFAULT_PRIORITY or not self._pod_work_waiting():
            return False
        namespace = dcd["metadata"]["namespace"]

        def differs(objects: Sequence[Mapping[str, Any]]) -> bool:
            return any(
                self._client.needs_apply(obj, self._cached(namespace, obj)) for obj in objects
            )

        return differs(children.workload) and differs(children.routing())

    def _cached(self, namespace: str, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
        kind = self._client.kind_of(obj)
        if not self._reader.has_synced(kind):
            return None
        return self._reader.get(kind, namespace, obj["metadata"]["name"])

    async def _apply(
        self,
        dcd: Mapping[str, Any],
        children: ComponentChildren,
        context: BuildContext,
        *,
        workload_only: bool,
    ) -> ChildChanges | None:
        """Write what differs: the discovery account first, then the children (deleting those
        no longer built), then the base models' Services this one let go of; `workload_only`:
        the account and the workload, nothing deleted. None when the namespace is being
        deleted."""
        try:
            created_access = await self._ensure_discovery_access(dcd, children, context)
        except ApiError as error:
            if is_namespace_terminating(error):
                return None
            raise
        if workload_only:
            changes = await apply_children(self._client, self._reader, dcd, children.workload)
        else:
            changes = await sync_children(
                self._client, self._reader, dcd, children.objects(), self._kinds.children
            )
        if changes.namespace_terminating:
            return None
        changes.created[:0] = created_access
        if not workload_only:
            await release_model_services(
                self._client, self._reader, dcd, children, context, changes
            )
        return changes

    async def _ensure_discovery_access(
        self, dcd: Mapping[str, Any], children: ComponentChildren, context: BuildContext
    ) -> list[str]:
        """The discovery account the component's pods run as (Kubernetes discovery: the
        operator's, or the component's own annotation), before the pods: its namespace's, owned
        by no graph, or the account of one graph its live pods keep, owned by the graph; none
        for pods that run as another (a planner's, the user's own). Its RoleBinding (and its
        Role, without a discovery ClusterRole) owned by it (applied with exactly that owner: a
        recreated account's reference replaces the old one's). Components apply each in turns
        (`SharedObjects`): the first creates it, the others find it, even while the cache lags.
        What was created, as `Kind/name`."""
        namespace = dcd["metadata"]["namespace"]
        running = pod_service_accounts(children.workload)
        if context.kept_discovery_account in running:
            owner = discovery_owner(dcd)
            kept = build_kept_discovery_account(namespace, owner)
            account, created = await self._shared.apply(kept, owner)
        elif DISCOVERY_ACCOUNT_NAME in running:
            shared = build_discovery_service_account(namespace)
            account, created = await self._shared.apply(shared, None)
        else:
            return []
        names = [f"ServiceAccount/{account['metadata']['name']}"] if created else []
        cluster_role = context.settings.discovery_cluster_role_name
        names += await self._shared.apply_all(
            build_discovery_access(namespace, account, cluster_role)
        )
        if cluster_role:
            await self._delete_own_role(account)
        return names

    async def _delete_own_role(self, account: Mapping[str, Any]) -> None:
        """The Role an account had before the operator was given a discovery ClusterRole (it ran
        without one, or an older version did): its binding now names the ClusterRole, so the
        Role grants nothing any more."""
        metadata = account["metadata"]
        namespace, name = metadata["namespace"], discovery_role_name(metadata["name"])
        role = self._reader.get(ROLE, namespace, name) if self._reader.has_synced(ROLE) else None
        if role is not None and is_owned_by(role, metadata["uid"]):
            await self._client.delete(ROLE, namespace, name)

    def _workloads(
        self, dcd: Mapping[str, Any], children: ComponentChildren, changes: ChildChanges
    ) -> list[Mapping[str, Any]]:
        """The workloads as they are now: the cached copies, or the server's answers to this
        pass's writes when the cache has not caught up (its status describes the old spec)."""
        namespace = dcd["metadata"]["namespace"]
        workloads = []
        for obj in children.workload:
            cached = self._cached(namespace, obj)
            if (live := changes.freshest(obj["kind"], obj["metadata"]["name"], cached)) is not None:
                workloads.append(live)
        return workloads

    async def _report(
        self,
        dcd: Mapping[str, Any],
        *,
        failure: StatusFailure | None = None,
        failed: bool | None = None,
        workloads: Sequence[Mapping[str, Any]] = (),
        pods: Sequence[Mapping[str, Any]] = (),
        unsupported: Unsupported | None = None,
    ) -> Result | None:
        """Derive the status and report it; ``failed`` (default: a failure was given) makes the
        transition's Event a Warning, and only a status that is not failed may wait as
        progress."""
        now = self._now()
        status = derive_component_status(
            dcd, workloads, now, pods=pods, unsupported=unsupported, failure=failure
        )
        failed = failure is not None if failed is None else failed
        event = derive_transition_event(
            dcd.get("status"), status, EVENTS, failed=failed, announce_ready=not _of_a_graph(dcd)
        )
        # A graph's component waits `PROGRESS_CAP` (or its share of the progress budget) before
        # a first status saying it is on its way: its graph reports for it meanwhile (a missing
        # status reads as pending there), and most components get there by then.
        progress_only = not failed and is_component_progress_only(dcd.get("status"), status)
        return await self._status.report(
            dcd,
            status,
            event,
            now=now,
            progress_only=progress_only,
            first_status=PROGRESS_CAP if _of_a_graph(dcd) else None,
        )


class _Halt(Exception):
    """The pass stops before applying anything; the status says why. ``failed`` False: the
    component waits (for its image), which is no warning."""

    def __init__(self, failure: StatusFailure, *, failed: bool = True) -> None:
        super().__init__(failure.message)
        self.failure = failure
        self.failed = failed


def _of_a_graph(dcd: Mapping[str, Any]) -> bool:
    """A graph's component: its graph's Ready Event says when all of them are (one Event per
    graph instead of one per component; the component's warnings are its own)."""
    return any(
        ref.get("kind") == KIND_GRAPH_DEPLOYMENT and ref.get("controller")
        for ref in dcd["metadata"].get("ownerReferences") or ()
    )
