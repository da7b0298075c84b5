"""The DynamoModel reconciler: find the workers of a base model, load a LoRA onto each of them.

Each pass: read the model from the cache; find its workers in the cached EndpointSlices of its
base model (the index by base-model hash and ``endpoint_slice_requests`` bring every slice change
back here, so nothing polls); validate the spec with the pure rules; for a LoRA, make sure the
finalizer is there and load the adapter onto each worker that does not have it yet; derive the
status, write it once if it changed, and emit Events on transitions and on load results.

What was loaded where is remembered per model and per worker (``LoadedAdapters``): a worker that
has the adapter is not asked again, a worker that appears (a scale-up) gets it on the pass its
EndpointSlice change triggers, a worker that leaves is forgotten (when it comes back it is asked
again), and a changed adapter is unloaded and loaded again. Memory is per process: after a
restart the adapter is loaded once more on every worker, which the route accepts. A pass with
failed loads ends with a Warning Event and looks again after ``retry_after`` (30 s). Calls run at
most ``parallelism`` at a time, each bounded by the workers client's timeout.

Deletion: the finalizer ``nvidia.com/finalizer`` holds a LoRA model until its adapter has been
unloaded from the workers found then. Unloading never holds the deletion longer than
``unload_timeout``: failures and leftovers are reported as a Warning Event and the finalizer goes.
Base models (and adapters, which the operator does not load) take no finalizer and no HTTP: their
status reports the workers found.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import anyio

from dynamo_operator.api import ModelType
from dynamo_operator.constants import MODEL_FINALIZER, Labels
from dynamo_operator.model_endpoints import (
    WorkerEndpoint,
    endpoint_service_names,
    find_worker_endpoints,
)
from dynamo_operator.naming import base_model_hash
from dynamo_operator.status import (
    ConditionTypes,
    EndpointState,
    Reasons,
    StatusFailure,
    TransitionEvents,
    derive_model_status,
    derive_transition_event,
)
from dynamo_operator.validation import validate_create
from manager.app.reconcilers.model.workers import CallOutcome, LoraWorkers
from manager.runtime.cache import CacheReader
from manager.runtime.client import Client, NotFound
from manager.runtime.controller import Request, Result
from manager.runtime.events import EventRecorder
from manager.runtime.kinds import ENDPOINT_SLICE, ResourceKind
from manager.runtime.logging import get_logger

__all__ = ["Adapter", "LoadedAdapters", "ModelKinds", "ModelReconciler"]

log = get_logger(__name__)

T = TypeVar("T")
_LISTED = 5
"""Endpoints named in one Event message; the rest are counted."""


@dataclass(frozen=True, slots=True)
class ModelKinds:
    """The kinds this reconciler reads and writes, resolved by the composition root."""

    model: ResourceKind
    endpoint_slice: ResourceKind = ENDPOINT_SLICE


@dataclass(frozen=True, slots=True)
class Adapter:
    """A LoRA as loaded on a worker."""

    name: str
    uri: str


class LoadedAdapters:
    """What this process loaded where: per model (reset when its uid changes), the adapter each
    worker (``WorkerEndpoint.key``) holds."""

    def __init__(self) -> None:
        self._models: dict[tuple[str, str], tuple[str, dict[str, Adapter]]] = {}

    def of(self, namespace: str, name: str, uid: str) -> dict[str, Adapter]:
        """The model's record, to read and update in place."""
        current = self._models.get((namespace, name))
        if current is None or current[0] != uid:
            current = (uid, {})
            self._models[(namespace, name)] = current
        return current[1]

    def forget(self, namespace: str, name: str) -> None:
        self._models.pop((namespace, name), None)


class ModelReconciler:
    def __init__(
        self,
        *,
        client: Client,
        reader: CacheReader,
        recorder: EventRecorder,
        workers: LoraWorkers,
        kinds: ModelKinds,
        now: Callable[[], datetime],
        parallelism: int = 8,
        retry_after: float = 30.0,
        unload_timeout: float = 30.0,
    ) -> None:
        self._client = client
        self._reader = reader
        self._recorder = recorder
        self._workers = workers
        self._kinds = kinds
        self._now = now
        self._parallelism = parallelism
        self._retry_after = retry_after
        self._unload_timeout = unload_timeout
        self.loaded = LoadedAdapters()
        self._finalizer_added: set[str] = set()
        """Uids whose finalizer this process added (the cache may not show it yet)."""

    async def reconcile(self, request: Request) -> Result | None:
        model = self._reader.get(self._kinds.model, request.namespace, request.name)
        if model is None:
            self.loaded.forget(request.namespace, request.name)
            return None
        if model["metadata"].get("deletionTimestamp"):
            await self._finalize(model)
            return None
        endpoints, services = self._discover(model)
        validation = validate_create(model)
        if not validation.allowed:
            states = [EndpointState(e.address, e.pod_name, ready=False) for e in endpoints]
            await self._report(model, states, services, StatusFailure.invalid(validation))
            return None
        if not _is_lora(model):
            states = [EndpointState(e.address, e.pod_name, ready=True) for e in endpoints]
            await self._report(model, states, services)
            return None
        await self._ensure_finalizer(model)
        states, failed = await self._load(model, endpoints)
        await self._report(model, states, services)
        return Result(requeue_after=self._retry_after) if failed else None

    # -- read -------------------------------------------------------------------------------------

    def _discover(self, model: Mapping[str, Any]) -> tuple[list[WorkerEndpoint], list[str]]:
        """The ready workers of the model's base model in its namespace, and their Services."""
        base_model = str((model.get("spec") or {}).get("baseModelName") or "")
        slices = self._reader.list(
            self._kinds.endpoint_slice,
            model["metadata"]["namespace"],
            labels={Labels.BASE_MODEL_HASH: base_model_hash(base_model)},
        )
        return find_worker_endpoints(slices), endpoint_service_names(slices)

    # -- load -------------------------------------------------------------------------------------

    async def _load(
        self, model: Mapping[str, Any], endpoints: Sequence[WorkerEndpoint]
    ) -> tuple[list[EndpointState], int]:
        """Load the adapter where it is missing; the state of every worker, and how many failed."""
        wanted = _adapter(model)
        metadata = model["metadata"]
        loaded = self.loaded.of(metadata["namespace"], metadata["name"], metadata["uid"])
        present = {endpoint.key for endpoint in endpoints}
        for key in [key for key in loaded if key not in present]:
            del loaded[key]  # a worker that left: asked again if it comes back
        missing = [endpoint for endpoint in endpoints if loaded.get(endpoint.key) != wanted]
        outcomes = await self._each(
            missing, lambda endpoint: self._load_one(endpoint, loaded.get(endpoint.key), wanted)
        )
        for endpoint, outcome in zip(missing, outcomes, strict=True):
            if outcome.ok:
                loaded[endpoint.key] = wanted
            else:
                loaded.pop(endpoint.key, None)
        failures = {
            endpoint.key: outcome
            for endpoint, outcome in zip(missing, outcomes, strict=True)
            if not outcome.ok
        }
        self._announce_loads(model, wanted, missing, failures, len(endpoints))
        states = [
            EndpointState(
                endpoint.address,
                endpoint.pod_name,
                ready=loaded.get(endpoint.key) == wanted,
                message=failures[endpoint.key].message if endpoint.key in failures else None,
            )
            for endpoint in endpoints
        ]
        return states, len(failures)

    async def _load_one(
        self, endpoint: WorkerEndpoint, previous: Adapter | None, wanted: Adapter
    ) -> CallOutcome:
        if previous is not None:  # the spec changed: the old adapter goes first (best effort)
            await self._workers.unload(endpoint, previous.name)
        return await self._workers.load(endpoint, wanted.name, wanted.uri)

    async def _each(
        self,
        endpoints: Sequence[WorkerEndpoint],
        call: Callable[[WorkerEndpoint], Awaitable[T]],
        results: dict[str, T] | None = None,
    ) -> list[T]:
        """``call`` on every endpoint, ``parallelism`` at a time, results in endpoint order
        (also collected in ``results`` by key as they come, for a caller that may give up)."""
        done: dict[str, T] = {} if results is None else results
        limiter = anyio.CapacityLimiter(self._parallelism)

        async def one(endpoint: WorkerEndpoint) -> None:
            async with limiter:
                done[endpoint.key] = await call(endpoint)

        async with anyio.create_task_group() as group:
            for endpoint in endpoints:
                group.start_soon(one, endpoint)
        return [done[endpoint.key] for endpoint in endpoints]

    def _announce_loads(
        self,
        model: Mapping[str, Any],
        adapter: Adapter,
        attempted: Sequence[WorkerEndpoint],
        failures: Mapping[str, CallOutcome],
        total: int,
    ) -> None:
        loaded = [endpoint for endpoint in attempted if endpoint.key not in failures]
        if loaded:
            self._recorder.event(
                model,
                "Normal",
                "LoRALoaded",
                f"Loaded LoRA {adapter.name} on {_listing(e.address for e in loaded)}",
            )
        if failures:
            failed = [endpoint for endpoint in attempted if endpoint.key in failures]
            details = (f"{e.address} ({failures[e.key].message})" for e in failed)
            self._recorder.event(
                model,
                "Warning",
                "PartialEndpointFailure",
                f"Failed to load LoRA {adapter.name} on {len(failed)} of {total} endpoint(s): "
                f"{_listing(details)}; retrying in {self._retry_after:g}s",
            )

    # -- finalizer --------------------------------------------------------------------------------

    async def _ensure_finalizer(self, model: Mapping[str, Any]) -> None:
        metadata = model["metadata"]
        finalizers = metadata.get("finalizers") or []
        if MODEL_FINALIZER in finalizers or metadata["uid"] in self._finalizer_added:
            return
        add = (
            {"op": "add", "path": "/metadata/finalizers/-", "value": MODEL_FINALIZER}
            if finalizers
            else {"op": "add", "path": "/metadata/finalizers", "value": [MODEL_FINALIZER]}
        )
        # Guarded by the resourceVersion read: a list the cache has not seen is never replaced.
        guard = {
            "op": "test",
            "path": "/metadata/resourceVersion",
            "value": metadata["resourceVersion"],
        }
        await self._patch(model, [guard, add])
        self._finalizer_added.add(metadata["uid"])

    async def _finalize(self, model: Mapping[str, Any]) -> None:
        metadata = model["metadata"]
        finalizers = list(metadata.get("finalizers") or [])
        if MODEL_FINALIZER in finalizers:
            if _is_lora(model) and _adapter_name(model):
                await self._unload_all(model)
            index = finalizers.index(MODEL_FINALIZER)
            path = f"/metadata/finalizers/{index}"
            with contextlib.suppress(NotFound):  # deleted meanwhile: nothing left to hold
                await self._patch(
                    model,
                    [
                        {"op": "test", "path": path, "value": MODEL_FINALIZER},
                        {"op": "remove", "path": path},
                    ],
                )
        self.loaded.forget(metadata["namespace"], metadata["name"])
        self._finalizer_added.discard(metadata["uid"])

    async def _unload_all(self, model: Mapping[str, Any]) -> None:
        """Unload the adapter from every worker found now, for at most ``unload_timeout``."""
        name = _adapter_name(model)
        endpoints, _ = self._discover(model)
        if not endpoints:
            return
        outcomes: dict[str, CallOutcome] = {}
        with anyio.move_on_after(self._unload_timeout):
            await self._each(
                endpoints, lambda endpoint: self._workers.unload(endpoint, name), outcomes
            )
        late = CallOutcome("timeout", f"not done within {self._unload_timeout:g}s")
        failed = [
            (endpoint, outcome)
            for endpoint in endpoints
            if not (outcome := outcomes.get(endpoint.key, late)).ok
        ]
        if not failed:
            self._recorder.event(
                model,
                "Normal",
                "LoRAUnloaded",
                f"Unloaded LoRA {name} from {len(endpoints)} endpoint(s)",
            )
            return
        details = (f"{endpoint.address} ({outcome.message})" for endpoint, outcome in failed)
        self._recorder.event(
            model,
            "Warning",
            "LoRAUnloadFailed",
            f"Failed to unload LoRA {name} from {len(failed)} of {len(endpoints)} endpoint(s): "
            f"{_listing(details)}; deleting anyway",
        )

    async def _patch(self, model: Mapping[str, Any], operations: list[dict[str, Any]]) -> None:
        metadata = model["metadata"]
        await self._client.rest.json_patch(
            self._kinds.model,
            metadata["namespace"],
            metadata["name"],
            operations,
            field_manager=self._client.identity.field_manager,
        )

    # -- report -----------------------------------------------------------------------------------

    async def _report(
        self,
        model: Mapping[str, Any],
        states: Sequence[EndpointState],
        services: Sequence[str],
        failure: StatusFailure | None = None,
    ) -> None:
        status = derive_model_status(model, states, services, self._now(), failure=failure)
        await self._client.apply_status_if_changed(status, model)
        failed = failure is not None
        if event := derive_transition_event(model.get("status"), status, EVENTS, failed=failed):
            self._recorder.event(model, event.type, event.reason, event.message)


EVENTS = TransitionEvents(
    ConditionTypes.ENDPOINTS_READY,
    # Upstream's Event reasons, where they differ from the condition's.
    event_reasons={
        Reasons.ALL_ENDPOINTS_READY: "EndpointsReady",
        Reasons.NO_ENDPOINTS: "NoEndpointsFound",
    },
)


def _is_lora(model: Mapping[str, Any]) -> bool:
    return (model.get("spec") or {}).get("modelType") == ModelType.LORA


def _adapter_name(model: Mapping[str, Any]) -> str:
    return str((model.get("spec") or {}).get("modelName") or "")


def _adapter(model: Mapping[str, Any]) -> Adapter:
    spec = model.get("spec") or {}
    return Adapter(
        str(spec.get("modelName") or ""), str((spec.get("source") or {}).get("uri") or "")
    )


def _listing(items: Any) -> str:
    listed = list(items)
    shown = ", ".join(listed[:_LISTED])
    return shown if len(listed) <= _LISTED else f"{shown} and {len(listed) - _LISTED} more"
