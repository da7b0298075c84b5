"""Which LoRA adapter to load and unload on which worker, and what to announce: pure decisions
for the DynamoModel reconciler, which makes the calls.

`plan_adapter_loads` compares the adapter a model wants with what each worker holds (the
reconciler's memory, per worker key): a worker that holds it is left alone, one that holds an
older adapter has it unloaded first, one that holds nothing gets it, and a worker that left is
forgotten (when it comes back it is asked again). After the calls, `endpoint_states` says which
workers serve the adapter for the status, and `load_events` / `unload_event` phrase the Events.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dynamo_operator.api import ModelType
from dynamo_operator.model_endpoints import WorkerEndpoint
from dynamo_operator.status import EndpointState, Event

__all__ = [
    "Adapter",
    "AdapterLoad",
    "LoadPlan",
    "adapter_of",
    "endpoint_states",
    "is_lora",
    "load_events",
    "plan_adapter_loads",
    "unload_event",
]

LISTED = 5
"""Endpoints named in one Event message; the rest are counted."""


@dataclass(frozen=True, slots=True)
class Adapter:
    """A LoRA as loaded on a worker."""

    name: str
    uri: str


@dataclass(frozen=True, slots=True)
class AdapterLoad:
    """Load the wanted adapter on `endpoint`, unloading `previous` first when there is one."""

    endpoint: WorkerEndpoint
    previous: Adapter | None = None


@dataclass(frozen=True, slots=True)
class LoadPlan:
    adapter: Adapter
    loads: tuple[AdapterLoad, ...]
    departed: tuple[str, ...]
    """Keys of workers the memory holds that serve the base model no more."""


def is_lora(model: Mapping[str, Any]) -> bool:
    return (model.get("spec") or {}).get("modelType") == ModelType.LORA


def adapter_of(model: Mapping[str, Any]) -> Adapter:
    """The adapter a DynamoModel (wire form) asks for."""
    spec = model.get("spec") or {}
    return Adapter(
        str(spec.get("modelName") or ""), str((spec.get("source") or {}).get("uri") or "")
    )


def plan_adapter_loads(
    wanted: Adapter, endpoints: Sequence[WorkerEndpoint], held: Mapping[str, Adapter]
) -> LoadPlan:
    """What to call so that every worker in `endpoints` holds `wanted`, given what each worker
    holds (`held`, by `WorkerEndpoint.key`)."""
    present = {endpoint.key for endpoint in endpoints}
    return LoadPlan(
        adapter=wanted,
        loads=tuple(
            AdapterLoad(endpoint, held.get(endpoint.key))
            for endpoint in endpoints
            if held.get(endpoint.key) != wanted
        ),
        departed=tuple(key for key in held if key not in present),
    )


def endpoint_states(
    endpoints: Sequence[WorkerEndpoint],
    wanted: Adapter,
    held: Mapping[str, Adapter],
    failures: Mapping[str, str],
) -> list[EndpointState]:
    """Each worker's state once the plan ran: ready when it holds `wanted`; `failures` (message
    by worker key) say why the others do not."""
    return [
        EndpointState(
            endpoint.address,
            endpoint.pod_name,
            ready=held.get(endpoint.key) == wanted,
            message=failures.get(endpoint.key),
        )
        for endpoint in endpoints
    ]


def load_events(
    plan: LoadPlan, failures: Mapping[str, str], total: int, retry_after: float
) -> list[Event]:
    """One Normal Event naming the workers that got the adapter, one Warning naming those that
    failed (with why) and when they are tried again."""
    attempted = [load.endpoint for load in plan.loads]
    loaded = [endpoint for endpoint in attempted if endpoint.key not in failures]
    failed = [endpoint for endpoint in attempted if endpoint.key in failures]
    name = plan.adapter.name
    events = []
    if loaded:
        listing = _listing(endpoint.address for endpoint in loaded)
        events.append(Event("Normal", "LoRALoaded", f"Loaded LoRA {name} on {listing}"))
    if failed:
        details = _listing(f"{e.address} ({failures[e.key]})" for e in failed)
        events.append(
            Event(
                "Warning",
                "PartialEndpointFailure",
                f"Failed to load LoRA {name} on {len(failed)} of {total} endpoint(s): "
                f"{details}; retrying in {retry_after:g}s",
            )
        )
    return events


def unload_event(
    name: str, endpoints: Sequence[WorkerEndpoint], failures: Mapping[str, str]
) -> Event:
    """The Event of a deletion's unloading, which never holds the deletion: `failures` (message
    by worker key) are reported and the model goes anyway."""
    failed = [endpoint for endpoint in endpoints if endpoint.key in failures]
    if not failed:
        return Event(
            "Normal", "LoRAUnloaded", f"Unloaded LoRA {name} from {len(endpoints)} endpoint(s)"
        )
    details = _listing(f"{e.address} ({failures[e.key]})" for e in failed)
    return Event(
        "Warning",
        "LoRAUnloadFailed",
        f"Failed to unload LoRA {name} from {len(failed)} of {len(endpoints)} endpoint(s): "
        f"{details}; deleting anyway",
    )


def _listing(items: Iterable[str]) -> str:
    listed = list(items)
    shown = ", ".join(listed[:LISTED])
    return shown if len(listed) <= LISTED else f"{shown} and {len(listed) - LISTED} more"
