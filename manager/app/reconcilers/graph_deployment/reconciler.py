"""The DynamoGraphDeployment reconciler: one DCD per service, the graph's PVCs, planner access.

Five steps per pass, each a call: read the graph from the cache; validate it with the pure
validators (invalid is terminal until the spec changes: `failed`, one Warning Event, no retry);
a graph naming a built artifact waits for its DynamoComponent and is expanded into the artifact's
services (`artifact_step.py`); build its DCDs, PVCs and planner access with the pure builders;
apply what differs (DCDs of services removed from the map are deleted; PVCs are created when
missing and never updated, and no graph owns them, so deleting the graph keeps the data); derive
the status from the cached DCDs, write it once if it changed, and emit an Event only on a
transition.

Progress is spaced out per graph (`manager.app.progress`): while a graph is pending, each
of its components moving a replica forward changes the `Ready` message and the replica counts,
and writing each of those would be most of the operator's writes while many graphs converge. A
status that differs only in progress (same state, reason, generation) waits until the graph's
last write is `PROGRESS_FIRST` old after any other write, `PROGRESS_CAP` old after a progress
write (a requeue, so the latest progress is written), longer under load (the graphs in
progress share a budget of writes a second); a first status saying the graph is pending waits
until the operator has known the graph for `PROGRESS_FIRST` (or its share), so a graph that
converges by then gets one status write. While pod-making work (new graphs, new components) or
any component pass (a Service, a component's status) is queued, progress waits behind it
(`StatusReport`'s `busy`, `progress_waits`): many graphs converging at once then write one
status each, the one saying they are ready.

No finalizer: garbage collection deletes the DCDs and their children, and a namespace deletion
never waits for a stopped operator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.builders import (
    BuildContext,
    BuildError,
    build_component_deployments,
    build_persistent_volume_claims,
    build_scaling_adapters,
)
from dynamo_operator.builders.service_account import build_planner_access
from dynamo_operator.image_build import ImageBuildError, expand_service_pvcs
from dynamo_operator.settings import OperatorSettings
from dynamo_operator.status import (
    ConditionTypes,
    StatusFailure,
    TransitionEvents,
    derive_graph_status,
    derive_transition_event,
    is_progress_only,
)
from dynamo_operator.validation import validate_cached
from manager.app.progress import progress_throttle
from manager.app.reconcilers.graph_deployment.artifact_step import ArtifactStep
from manager.app.reconcilers.graph_deployment.scaling_adapters import sync_scaling_adapters
from manager.runtime.cache import CacheReader
from manager.runtime.client import AlreadyExists, BadRequest, Client, Invalid
from manager.runtime.controller import Request, Result
from manager.runtime.events import EventRecorder
from manager.runtime.kinds import PERSISTENT_VOLUME_CLAIM, ResourceKind
from manager.runtime.ownership import ChildChanges, apply_each, sync_children
from manager.runtime.status_report import StatusReport

__all__ = ["GraphDeploymentReconciler", "GraphKinds"]

READY = ConditionTypes.READY
ARTIFACT_RETRY = 30.0
"""Seconds before asking the API store again for an artifact it could not give."""
EVENTS = TransitionEvents(READY, ready_reason="Ready", warn_while_waiting=False)


@dataclass(frozen=True, slots=True)
class GraphKinds:
    graph: ResourceKind
    component: ResourceKind


class GraphDeploymentReconciler:
    def __init__(
        self,
        *,
        client: Client,
        reader: CacheReader,
        recorder: EventRecorder,
        kinds: GraphKinds,
        settings: Callable[[], OperatorSettings],
        planner_cluster_role_name: str | None,
        now: Callable[[], datetime],
        artifacts: ArtifactStep,
        progress_waits: Callable[[], bool] = lambda: False,
        collector_holds: Callable[[Mapping[str, Any]], bool] = lambda _graph: False,
    ) -> None:
        self._client = client
        self._reader = reader
        self._recorder = recorder
        self._kinds = kinds
        self._settings = settings
        self._planner_cluster_role_name = planner_cluster_role_name
        self._now = now
        self._artifacts = artifacts
        self._collector_holds = collector_holds
        self._status = StatusReport(
            client,
            recorder,
            progress_throttle(),
            busy=progress_waits,
        )

    async def reconcile(self, request: Request) -> Result | None:
        dgd = self._reader.get(self._kinds.graph, request.namespace, request.name)
        if dgd is None or dgd["metadata"].get("deletionTimestamp"):
            return None
        if self._collector_holds(dgd):
            return None  # its sighting by the garbage collector queues it (`CollectorView`)
        validation = validate_cached(dgd)
        if not validation.allowed:
            return await self._report(dgd, failure=StatusFailure.invalid(validation))
        model = validation.model(DynamoGraphDeployment)
        try:
            model = expand_service_pvcs(model)
            if model.spec.dynamo_component:
                verdict = await self._artifacts.resolve(model, request.namespace)
                if verdict.graph is None:
                    return await self._report(
                        dgd,
                        failure=verdict.failure,
                        waiting=[verdict.waiting] if verdict.waiting else [],
                        requeue_after=ARTIFACT_RETRY if verdict.retry else None,
                    )
                model = verdict.graph
        except (ImageBuildError, Invalid, BadRequest) as error:
            return await self._report(dgd, failure=StatusFailure.reconcile_error(str(error)))
        context = BuildContext(settings=self._settings(), default_namespace=request.namespace)
        try:
            components = build_component_deployments(model, context)
            changes = await sync_children(
                self._client, self._reader, dgd, components, (self._kinds.component,)
            )
            if changes.namespace_terminating:
                return None  # the graph goes with its namespace
            await self._ensure_shared(model, request.namespace, changes)
            adapters = build_scaling_adapters(model, context)
            await sync_scaling_adapters(self._client, self._reader, dgd, adapters, changes)
            if changes.namespace_terminating:
                return None
            changes.created.extend(await self._create_claims(model, context))
        except (BuildError, Invalid, BadRequest) as error:
            return await self._report(dgd, failure=StatusFailure.reconcile_error(str(error)))
        changes.announce(self._recorder, dgd)
        return await self._report(
            dgd, waiting=self._missing_claims(model, request.namespace), changes=changes
        )

    async def _ensure_shared(
        self, model: DynamoGraphDeployment, namespace: str, changes: ChildChanges
    ) -> None:
        """Planner access is shared by the namespace's graphs: applied when it differs, never
        deleted with one graph."""
        access = build_planner_access(model, namespace, self._planner_cluster_role_name)
        changes.created.extend(await apply_each(self._client, self._reader, access))

    async def _create_claims(
        self, model: DynamoGraphDeployment, context: BuildContext
    ) -> list[str]:
        created = []
        for claim in build_persistent_volume_claims(model, context):
            metadata = claim["metadata"]
            if self._reader.get(PERSISTENT_VOLUME_CLAIM, metadata["namespace"], metadata["name"]):
                continue  # never resized or rewritten: the claim's data is the user's
            try:
                await self._client.create(claim)
            except AlreadyExists:
                continue
            created.append(f"PersistentVolumeClaim/{metadata['name']}")
        return created

    def _missing_claims(self, model: DynamoGraphDeployment, namespace: str) -> Sequence[str]:
        return [
            f"PersistentVolumeClaim {pvc.name} does not exist (create: false: the graph "
            "expects it to be there)"
            for pvc in model.spec.pvcs or ()
            if pvc.name
            and not pvc.create
            and self._reader.get(PERSISTENT_VOLUME_CLAIM, namespace, pvc.name) is None
        ]

    def _components(
        self, dgd: Mapping[str, Any], changes: ChildChanges | None
    ) -> list[Mapping[str, Any]]:
        """The graph's DCDs as they are now: cached, or the server's answer to this pass's write
        when the cache has not caught up (a DCD whose spec just changed has not observed it)."""
        metadata = dgd["metadata"]
        kind = self._kinds.component.kind
        by_name: dict[str, Mapping[str, Any] | None] = {
            dcd["metadata"]["name"]: dcd
            for dcd in self._reader.list(
                self._kinds.component, metadata["namespace"], owner_uid=metadata["uid"]
            )
        }
        if changes is not None:
            for written_kind, name in changes.written:
                if written_kind == kind:
                    by_name[name] = changes.freshest(kind, name, by_name.get(name))
        return [dcd for dcd in by_name.values() if dcd is not None]

    async def _report(
        self,
        dgd: Mapping[str, Any],
        *,
        failure: StatusFailure | None = None,
        waiting: Sequence[str] = (),
        changes: ChildChanges | None = None,
        requeue_after: float | None = None,
    ) -> Result | None:
        now = self._now()
        status = derive_graph_status(
            dgd, self._components(dgd, changes), now, failure=failure, waiting=waiting
        )
        event = derive_transition_event(
            dgd.get("status"), status, EVENTS, failed=failure is not None
        )
        return await self._status.report(
            dgd,
            status,
            event,
            now=now,
            progress_only=is_progress_only(dgd.get("status"), status),
            requeue_after=requeue_after,
        )
