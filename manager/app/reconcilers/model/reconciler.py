"""The DynamoModel reconciler: find the workers of a base model, load a LoRA onto each of them.

Each pass, five steps: read the model and its workers from the cache (the ready endpoints of the
EndpointSlices of its base model; the index by base-model hash and ``endpoint_slice_requests``
bring every slice change back here, so nothing polls); validate the spec with the pure rules;
plan which worker needs the adapter (``dynamo_operator.lora_plan``, against what this process
loaded where, ``adapter_memory``); apply the plan, holding the model with a finalizer first;
report: derive the status, write it once if it changed, and emit Events on transitions and on
load results. A pass with failed loads looks again after ``retry_after`` (30 s). Calls run at
most ``parallelism`` at a time, each bounded by the workers client's timeout.

Deletion: the finalizer ``nvidia.com/finalizer`` holds a LoRA model until its adapter has been
unloaded from the workers found then. Unloading never holds the deletion longer than
``unload_timeout``: failures and leftovers are reported as a Warning Event and the finalizer goes.
Base models (and adapters, which the operator does not load) take no finalizer and no HTTP: their
status reports the workers found.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import anyio

from dynamo_operator.constants import MODEL_FINALIZER, Labels
from dynamo_operator.lora_plan import (
    AdapterLoad,
    LoadPlan,
    adapter_of,
    endpoint_states,
    is_lora,
    load_events,
    plan_adapter_loads,
    unload_event,
)
from dynamo_operator.model_endpoints import (
    WorkerEndpoint,
    endpoint_service_names,
    find_worker_endpoints,
)
from dynamo_operator.naming import base_model_hash
from dynamo_operator.status import (
    ConditionTypes,
    EndpointState,
    Event,
    Reasons,
    StatusFailure,
    TransitionEvents,
    derive_model_status,
    derive_transition_event,
)
from dynamo_operator.validation import validate_cached
from manager.app.reconcilers.model.adapter_memory import LoadedAdapters
from manager.app.reconcilers.model.workers import CallOutcome, LoraWorkers
from manager.runtime.cache import CacheReader
from manager.runtime.client import Client
from manager.runtime.controller import Request, Result
from manager.runtime.events import EventRecorder
from manager.runtime.finalizers import Finalizer
from manager.runtime.kinds import ENDPOINT_SLICE, ResourceKind
from manager.runtime.status_report import StatusReport

__all__ = ["EVENTS", "ModelKinds", "ModelReconciler"]

T = TypeVar("T")

EVENTS = TransitionEvents(
    ConditionTypes.ENDPOINTS_READY,
    # Upstream's Event reasons, where they differ from the condition's.
    event_reasons={
        Reasons.ALL_ENDPOINTS_READY: "EndpointsReady",
        Reasons.NO_ENDPOINTS: "NoEndpointsFound",
    },
)


@dataclass(frozen=True, slots=True)
class ModelKinds:
    """The kinds this reconciler reads and writes, resolved by the composition root."""

    model: ResourceKind
    endpoint_slice: ResourceKind = ENDPOINT_SLICE


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
        self._status = StatusReport(client, recorder)
        self._finalizer = Finalizer(client, kinds.model, MODEL_FINALIZER)

    async def reconcile(self, request: Request) -> Result | None:
        model = self._reader.get(self._kinds.model, request.namespace, request.name)
        if model is None:
            self.loaded.forget(request.namespace, request.name)
            return None
        if model["metadata"].get("deletionTimestamp"):
            await self._finalize(model)
            return None
        endpoints, services = self._discover(model)
        validation = validate_cached(model)
        if not validation.allowed:
            states = [EndpointState(e.address, e.pod_name, ready=False) for e in endpoints]
            return await self._report(model, states, services, StatusFailure.invalid(validation))
        if not is_lora(model):
            states = [EndpointState(e.address, e.pod_name, ready=True) for e in endpoints]
            return await self._report(model, states, services)
        await self._finalizer.ensure(model)
        states, failed = await self._load(model, endpoints)
        retry = self._retry_after if failed else None
        return await self._report(model, states, services, requeue_after=retry)

    def _discover(self, model: Mapping[str, Any]) -> tuple[list[WorkerEndpoint], list[str]]:
        """The ready workers of the model's base model in its namespace, and their Services."""
        base_model = str((model.get("spec") or {}).get("baseModelName") or "")
        slices = self._reader.list(
            self._kinds.endpoint_slice,
            model["metadata"]["namespace"],
            labels={Labels.BASE_MODEL_HASH: base_model_hash(base_model)},
        )
        return find_worker_endpoints(slices), endpoint_service_names(slices)

    async def _load(
        self, model: Mapping[str, Any], endpoints: Sequence[WorkerEndpoint]
    ) -> tuple[list[EndpointState], int]:
        """Load the adapter where it is missing; the state of every worker, and how many failed."""
        metadata = model["metadata"]
        held = self.loaded.of(metadata["namespace"], metadata["name"], metadata["uid"])
        plan = plan_adapter_loads(adapter_of(model), endpoints, held)
        for key in plan.departed:
            del held[key]
        outcomes = await self._each([load.endpoint for load in plan.loads], self._loader(plan))
        failures: dict[str, str] = {}
        for load, outcome in zip(plan.loads, outcomes, strict=True):
            if outcome.ok:
                held[load.endpoint.key] = plan.adapter
            else:
                held.pop(load.endpoint.key, None)
                failures[load.endpoint.key] = outcome.message or outcome.result
        self._announce(model, load_events(plan, failures, len(endpoints), self._retry_after))
        return endpoint_states(endpoints, plan.adapter, held, failures), len(failures)

    def _loader(self, plan: LoadPlan) -> Callable[[WorkerEndpoint], Awaitable[CallOutcome]]:
        loads: dict[str, AdapterLoad] = {load.endpoint.key: load for load in plan.loads}

        async def load(endpoint: WorkerEndpoint) -> CallOutcome:
            previous = loads[endpoint.key].previous
            if previous is not None:  # the spec changed: the old adapter goes first (best effort)
                await self._workers.unload(endpoint, previous.name)
            return await self._workers.load(endpoint, plan.adapter.name, plan.adapter.uri)

        return load

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

    async def _finalize(self, model: Mapping[str, Any]) -> None:
        if self._finalizer.holds(model):
            name = adapter_of(model).name
            if is_lora(model) and name:
                await self._unload_everywhere(model, name)
            await self._finalizer.release(model)
        metadata = model["metadata"]
        self.loaded.forget(metadata["namespace"], metadata["name"])

    async def _unload_everywhere(self, model: Mapping[str, Any], name: str) -> None:
        """Unload the adapter from every worker found now, for at most ``unload_timeout``."""
        endpoints, _ = self._discover(model)
        if not endpoints:
            return
        outcomes: dict[str, CallOutcome] = {}
        with anyio.move_on_after(self._unload_timeout):
            await self._each(
                endpoints, lambda endpoint: self._workers.unload(endpoint, name), outcomes
            )
        late = f"not done within {self._unload_timeout:g}s"
        failures = {
            endpoint.key: late if outcome is None else (outcome.message or outcome.result)
            for endpoint in endpoints
            if (outcome := outcomes.get(endpoint.key)) is None or not outcome.ok
        }
        self._announce(model, [unload_event(name, endpoints, failures)])

    def _announce(self, model: Mapping[str, Any], events: Sequence[Event]) -> None:
        for event in events:
            self._recorder.event(model, event.type, event.reason, event.message)

    async def _report(
        self,
        model: Mapping[str, Any],
        states: Sequence[EndpointState],
        services: Sequence[str],
        failure: StatusFailure | None = None,
        *,
        requeue_after: float | None = None,
    ) -> Result | None:
        now = self._now()
        status = derive_model_status(model, states, services, now, failure=failure)
        failed = failure is not None
        event = derive_transition_event(model.get("status"), status, EVENTS, failed=failed)
        return await self._status.report(model, status, event, now=now, requeue_after=requeue_after)
