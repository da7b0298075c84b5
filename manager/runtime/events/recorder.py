"""The event recorder: core/v1 Events about objects, best effort, never in a reconcile's way.

`event(...)` only appends to a bounded buffer and returns; when the buffer is full the event is
dropped and counted (`event_recorder_dropped_total`). `run()` drains the buffer in the
background, `WRITERS` writes at a time, through the `Correlator` (spam filter, aggregation,
counting repeats) and writes: a new Event, or a merge patch of `count`/`lastTimestamp` on the
Event a repeat belongs to.
Write failures are logged and forgotten: an Event is a hint for humans, never state.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import anyio
import anyio.abc
from prometheus_client import Counter

from manager.runtime.client.errors import KubeError, NotFound
from manager.runtime.client.rest import RestClient
from manager.runtime.clock import Clock, RealClock
from manager.runtime.events.correlator import Correlation, Correlator, EventType, PendingEvent
from manager.runtime.identity import Identity
from manager.runtime.kinds import EVENT
from manager.runtime.logging import get_logger

__all__ = ["DROPPED", "WRITES", "EventRecorder"]

log = get_logger(__name__)

DROPPED = Counter(
    "event_recorder_dropped_total",
    "Events not written, by reason (buffer_full, spam_filter, write_failed).",
    ["reason"],
)
WRITES = Counter(
    "event_recorder_writes_total", "Event writes made, by operation (create, patch).", ["op"]
)


WRITERS = 4
"""Event writes in flight at once, each from its own buffer; one object's Events always go to
the same one, so a repeat finds the Event it counts on. One at a time, a write taking 40 ms
under load passes 25 Events a second, fewer than 500 graphs converging make, and the buffer
overflowed (`bench.converge` at N = 500 dropped 126)."""


class EventRecorder:
    """Events from `identity.event_component`, written with `identity.event_field_manager`;
    `instance` (the host name by default) tells replicas apart; `buffer_size` Events wait per
    writer (1,000 in all by default, client-go's bound)."""

    def __init__(
        self,
        api: Any,
        identity: Identity,
        *,
        buffer_size: int = 250,
        clock: Clock | None = None,
        instance: str | None = None,
    ) -> None:
        self._api = api
        self.component = identity.event_component
        self._field_manager = identity.event_field_manager
        self.instance = instance or socket.gethostname()
        self._queues = [
            anyio.create_memory_object_stream[PendingEvent](buffer_size) for _ in range(WRITERS)
        ]
        self._correlator = Correlator(clock or RealClock())

    def event(self, obj: Mapping[str, Any], type: EventType, reason: str, message: str) -> None:
        """Record an event about `obj`; returns at once, whatever happens to the write."""
        metadata = obj.get("metadata") or {}
        key = (
            f"{obj.get('apiVersion', '')}/{obj.get('kind', '')}",
            metadata.get("namespace") or "",
            metadata.get("name", ""),
            metadata.get("uid", ""),
        )
        try:
            send, _ = self._queues[hash(key) % WRITERS]  # one object's Events stay in order
            send.send_nowait(PendingEvent(key, type, reason, message, _involved_object(obj)))
        except anyio.WouldBlock:
            DROPPED.labels("buffer_full").inc()

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Write buffered events until cancelled, `WRITERS` at a time."""
        rest = RestClient.for_api(self._api)
        async with anyio.create_task_group() as writers:
            for _, receive in self._queues:
                writers.start_soon(self._drain, rest, receive)
            task_status.started()

    async def _drain(
        self, rest: RestClient, receive: anyio.abc.ObjectReceiveStream[PendingEvent]
    ) -> None:
        async with receive:
            async for pending in receive:
                correlation = self._correlator.correlate(pending)
                if correlation is None:
                    DROPPED.labels("spam_filter").inc()
                    continue
                try:
                    await self._write(rest, correlation)
                except KubeError as error:
                    DROPPED.labels("write_failed").inc()
                    log.info("event write failed", reason=pending.reason, err=str(error))

    async def _write(self, rest: RestClient, correlation: Correlation) -> None:
        event = correlation.event
        namespace = event.object_key[1] or "default"
        now = _timestamp()
        if correlation.existing is not None:
            patch = {
                "count": correlation.count,
                "lastTimestamp": now,
                "message": correlation.message,
            }
            try:
                await rest.merge_patch(
                    EVENT, namespace, correlation.existing, patch, field_manager=self._field_manager
                )
                WRITES.labels("patch").inc()
                return
            except NotFound:
                self._correlator.forget(correlation)
                correlation = self._correlator.correlate(event) or correlation
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{event.object_key[2]}.{time.time_ns():x}",
                "namespace": namespace,
            },
            "involvedObject": dict(event.involved_object),
            "type": event.type,
            "reason": event.reason,
            "message": correlation.message,
            "count": correlation.count,
            "firstTimestamp": now,
            "lastTimestamp": now,
            "source": {"component": self.component, "host": self.instance},
            "reportingComponent": self.component,
            "reportingInstance": self.instance,
        }
        created = await rest.create(EVENT, body, field_manager=self._field_manager)
        WRITES.labels("create").inc()
        self._correlator.written(correlation, created["metadata"]["name"])


def _involved_object(obj: Mapping[str, Any]) -> dict[str, Any]:
    metadata = obj.get("metadata") or {}
    reference = {
        "apiVersion": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "namespace": metadata.get("namespace"),
        "name": metadata.get("name"),
        "uid": metadata.get("uid"),
        "resourceVersion": metadata.get("resourceVersion"),
    }
    return {k: v for k, v in reference.items() if v}


def _timestamp() -> str:
    """RFC 3339 in UTC, seconds precision (the `Time` type of core/v1 Events)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
