"""The DynamoComponentDeployment reconciler: one component's workload, Service, routing, scaling.

Five steps per pass, each a call: read the DCD from the cache; validate it with the pure
validators (the webhook's rules: invalid is terminal until the spec changes); build its children
with the pure builders (Deployment or LeaderWorkerSets (+ PodGroups), Service, the base model's
headless Service, Ingress or VirtualService, HPA); apply what differs (first, with Kubernetes
discovery, the graph's discovery account its pods run as: see `_ensure_discovery_access`) and
delete children that should no longer exist (a base model's Service is shared by the components
serving it: the cache's index of components by base model says who they are, and one that stops
serving it leaves it to the others); derive the status from the cached workloads and pods, write
it once if it changed, and emit an Event only on a transition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from dynamo_operator.api import KIND_GRAPH_DEPLOYMENT, DynamoComponentDeployment
from dynamo_operator.builders import (
    BuildContext,
    BuildError,
    ComponentChildren,
    ModelServiceOwners,
    build_component_children,
    build_discovery_access,
    build_discovery_service_account,
    build_model_service_owners,
    build_shared_model_service,
    discovery_owner,
    discovery_role_name,
    model_service_key,
    served_base_model,
)
from dynamo_operator.constants import Annotations, Labels
from dynamo_operator.image_build import awaited_dynamo_component, on_built_image
from dynamo_operator.pull_secrets import build_pull_secret_index
from dynamo_operator.settings import OperatorSettings
from dynamo_operator.status import (
    ConditionTypes,
    Reasons,
    StatusFailure,
    TransitionEvents,
    derive_component_status,
    derive_transition_event,
    dynamo_component_gate,
    is_component_progress_only,
)
from dynamo_operator.validation import validate_create
from manager.app.reconcilers.component_deployment.watches import SERVED_MODEL_INDEX
from manager.runtime.cache import CacheReader
from manager.runtime.client import ApiError, BadRequest, Client, Invalid, NotFound
from manager.runtime.controller import Request, Result
from manager.runtime.events import EventRecorder
from manager.runtime.kinds import POD, ROLE, SECRET, SERVICE, ResourceKind
from manager.runtime.ownership import (
    ChildChanges,
    SharedObjects,
    is_controlled_by,
    is_namespace_terminating,
    is_owned_by,
    sync_children,
)
from manager.runtime.progress import ProgressThrottle

__all__ = ["ComponentDeploymentReconciler", "ComponentKinds"]


@dataclass(frozen=True, slots=True)
class ComponentKinds:
    """The kinds this reconciler reads and writes, resolved by the composition root."""

    component: ResourceKind
    children: tuple[ResourceKind, ...]
    """Every kind a DCD may own (workloads, Service, Ingress, VirtualService, HPA)."""
    dynamo_component: ResourceKind
    """Where a DCD naming a built artifact without an image of its own finds that image."""


PROGRESS_FIRST, PROGRESS_CAP = timedelta(seconds=5), timedelta(seconds=30)
"""The spacing of an unavailable component's progress writes (a message, replica counts):
while many components start, those would be most of the writes (`manager.runtime.progress`,
as for graphs)."""
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
    ) -> None:
        self._client = client
        self._reader = reader
        self._recorder = recorder
        self._kinds = kinds
        self._settings = settings
        self._now = now
        self._progress = ProgressThrottle(PROGRESS_FIRST, PROGRESS_CAP)
        self._shared = SharedObjects(client, reader)

    async def reconcile(self, request: Request) -> Result | None:
        dcd = self._reader.get(self._kinds.component, request.namespace, request.name)
        if dcd is None or dcd["metadata"].get("deletionTimestamp"):
            return None  # garbage collection removes the children
        validation = validate_create(dcd)
        if not validation.allowed:
            return await self._report(dcd, failure=StatusFailure.invalid(validation))
        model = validation.model(DynamoComponentDeployment)
        if awaited := awaited_dynamo_component(model):
            built = self._reader.get(self._kinds.dynamo_component, request.namespace, awaited)
            gate = dynamo_component_gate(awaited, built)
            if gate.image is None:
                waiting = StatusFailure(Reasons.DYNAMO_COMPONENT_NOT_READY, str(gate.waiting))
                failure, failed = gate.failure or waiting, gate.failure is not None
                return await self._report(dcd, failure=failure, failed=failed)
            model = on_built_image(model, gate.image)
        context = BuildContext(
            settings=self._settings(),
            pull_secrets=self._pull_secrets(request.namespace),
            model_service_owners=self._model_service_owners(dcd),
        )
        try:
            children = build_component_children(model, context)
            try:
                created_access = await self._ensure_discovery_access(dcd, context.settings)
            except ApiError as error:
                if is_namespace_terminating(error):
                    return None  # the component goes with its namespace
                raise
            changes = await sync_children(
                self._client, self._reader, dcd, children.objects(), self._kinds.children
            )
            if changes.namespace_terminating:
                return None  # the component goes with its namespace
            changes.created[:0] = created_access
            await self._release_model_services(dcd, children, context, changes)
        except (BuildError, Invalid, BadRequest) as error:
            # The spec passed our rules but cannot be built or is refused by the API server:
            # the user has to change it, so report it and wait for that change.
            return await self._report(dcd, failure=StatusFailure.reconcile_error(str(error)))
        changes.announce(self._recorder, dcd)
        workloads = [
            live
            for obj in children.workload
            if (live := self._live(obj, request.namespace, changes)) is not None
        ]
        pods = self._reader.list(POD, request.namespace, labels={Labels.SELECTOR: request.name})
        return await self._report(
            dcd, workloads=workloads, pods=pods, unsupported=children.unsupported
        )

    async def _ensure_discovery_access(
        self, dcd: Mapping[str, Any], settings: OperatorSettings
    ) -> list[str]:
        """With Kubernetes discovery, the account the component's pods run as, before the pods:
        its graph's (or its own, standalone), owned by the graph; its RoleBinding (and its Role,
        without a discovery ClusterRole) owned by it (applied with exactly that owner: a
        recreated graph's new account replaces the old one's reference). The components of a
        graph apply each in turns (`SharedObjects`): the first creates it, the others find it,
        even while the cache lags. What was created, as `Kind/name`."""
        if settings.discovery_backend != "kubernetes":
            return []
        namespace, owner = dcd["metadata"]["namespace"], discovery_owner(dcd)
        account, created = await self._shared.apply(
            build_discovery_service_account(namespace, owner), owner
        )
        names = [f"ServiceAccount/{account['metadata']['name']}"] if created else []
        cluster_role = settings.discovery_cluster_role_name
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

    async def _release_model_services(
        self,
        dcd: Mapping[str, Any],
        children: ComponentChildren,
        context: BuildContext,
        changes: ChildChanges,
    ) -> None:
        """A base model's Service this component shares but no longer wants (its modelRef
        changed or went) is rebuilt for the components still serving that model, or deleted
        with the last of them; `sync_children` leaves it alone, not being its controller."""
        metadata = dcd["metadata"]
        namespace, uid = metadata["namespace"], metadata["uid"]
        if not self._reader.has_synced(SERVICE):
            return
        wanted = children.model_service["metadata"]["name"] if children.model_service else None
        for service in self._reader.list(
            SERVICE, namespace, owner_uid=uid, labels=Labels.BASE_MODEL_HASH
        ):
            name = service["metadata"]["name"]
            if name == wanted or is_controlled_by(service, uid):
                continue
            base_model = (service["metadata"].get("annotations") or {}).get(Annotations.BASE_MODEL)
            owners = [
                owner
                for owner in context.model_service_owners.get((namespace, str(base_model)), ())
                if owner.get("uid") != uid
            ]
            if base_model and owners:
                shared = build_shared_model_service(str(base_model), namespace, owners)
                if await self._client.apply_if_changed(shared, service):
                    changes.updated.append(f"Service/{name}")
            elif await self._client.delete(SERVICE, namespace, name):
                changes.deleted.append(f"Service/{name}")

    def _model_service_owners(self, dcd: Mapping[str, Any]) -> ModelServiceOwners:
        """The components sharing a base model's Service with this one: for the model it serves
        and for each it shared before (`_release_model_services` rebuilds those). Found through
        the cache's index: reading every component of the namespace instead was quadratic in a
        namespace's components, half the operator's CPU with 2,000 of them."""
        metadata = dcd["metadata"]
        namespace = metadata["namespace"]
        base_models = {model} if (model := served_base_model(dcd)) else set()
        if self._reader.has_synced(SERVICE):
            for service in self._reader.list(
                SERVICE, namespace, owner_uid=metadata["uid"], labels=Labels.BASE_MODEL_HASH
            ):
                if shared := (service["metadata"].get("annotations") or {}).get(
                    Annotations.BASE_MODEL
                ):
                    base_models.add(str(shared))
        return build_model_service_owners(
            component
            for base_model in sorted(base_models)
            for component in self._reader.by_index(
                self._kinds.component, SERVED_MODEL_INDEX, model_service_key(namespace, base_model)
            )
        )

    def _pull_secrets(self, namespace: str) -> Any:
        return build_pull_secret_index(self._reader.list(SECRET, namespace))

    def _live(
        self, obj: Mapping[str, Any], namespace: str, changes: ChildChanges
    ) -> Mapping[str, Any] | None:
        """The workload as it is now: the cached copy, or the server's answer to this pass's
        write when the cache has not caught up (its status describes the old spec)."""
        kind = self._client.kind_of(obj)
        name = obj["metadata"]["name"]
        cached = self._reader.get(kind, namespace, name) if self._reader.has_synced(kind) else None
        return changes.freshest(kind.kind, name, cached)

    async def _report(
        self, dcd: Mapping[str, Any], *, failed: bool | None = None, **derive: Any
    ) -> Result | None:
        """Write the derived status; ``failed`` (default: a failure was given) makes the
        transition's Event a Warning. Progress alone waits until the throttle allows it (a
        requeue)."""
        now, uid = self._now(), dcd["metadata"]["uid"]
        status = derive_component_status(dcd, derive.pop("workloads", ()), now, **derive)
        if failed is None:
            failed = derive.get("failure") is not None
        progress_only = not failed and is_component_progress_only(dcd.get("status"), status)
        if progress_only and (wait := self._progress.wait(uid, now)):
            return Result(requeue_after=wait)
        try:
            if await self._client.apply_status_if_changed(status, dcd):
                self._progress.written(uid, now, progress=progress_only)
        except NotFound:
            return None  # deleted since the cache read it (its namespace too, maybe)
        if event := derive_transition_event(
            dcd.get("status"), status, EVENTS, failed=failed, announce_ready=not _of_a_graph(dcd)
        ):
            self._recorder.event(dcd, event.type, event.reason, event.message)
        return None


def _of_a_graph(dcd: Mapping[str, Any]) -> bool:
    """A graph's component: its graph's Ready Event says when all of them are (one Event per
    graph instead of one per component; the component's warnings are its own)."""
    return any(
        ref.get("kind") == KIND_GRAPH_DEPLOYMENT and ref.get("controller")
        for ref in dcd["metadata"].get("ownerReferences") or ()
    )
