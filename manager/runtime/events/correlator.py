"""What to do with an event before it is written: client-go's event correlator, as pure logic.

Three stages, with client-go's numbers (`tools/record/events_cache.go`):
1. Spam filter: a token bucket per involved object, burst 25, one token back per 300 s; events
   beyond it are dropped.
2. Aggregation: once 10 events with the same object, type and reason but different messages
   arrive within 600 s, further ones share the message "(combined from similar events): ...".
3. De-duplication: an event identical to one already written (same object, type, reason and
   message) becomes a count increment on that Event instead of a new object.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from manager.runtime.clock import Clock

__all__ = ["Correlation", "Correlator", "PendingEvent"]

EventType = Literal["Normal", "Warning"]
AGGREGATED_PREFIX = "(combined from similar events): "

K = TypeVar("K")
V = TypeVar("V")


class _Lru(Generic[K, V]):
    """A dict that forgets its least recently used entries beyond `size` (client-go: 4096)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)


@dataclass(frozen=True, slots=True)
class PendingEvent:
    """An event as the reconciler reported it. `object_key` identifies the involved object."""

    object_key: tuple[str, str, str, str]  # (apiVersion/kind, namespace, name, uid)
    type: EventType
    reason: str
    message: str
    involved_object: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Correlation:
    """The event to write: `message` (maybe aggregated) and its running `count`; `existing` is
    the name of the Event object to update, None when a new one must be created."""

    event: PendingEvent
    message: str
    count: int
    existing: str | None
    dedup_key: tuple[object, ...]


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


@dataclass(slots=True)
class _Similar:
    first_seen: float
    messages: set[str] = field(default_factory=set)


@dataclass(slots=True)
class _Written:
    count: int
    name: str | None


class Correlator:
    def __init__(
        self,
        clock: Clock,
        *,
        burst: int = 25,
        refill_seconds: float = 300.0,
        max_similar: int = 10,
        aggregate_window: float = 600.0,
        cache_size: int = 4096,
    ) -> None:
        self._clock = clock
        self._burst = burst
        self._refill_seconds = refill_seconds
        self._max_similar = max_similar
        self._aggregate_window = aggregate_window
        self._buckets: _Lru[tuple[str, str, str, str], _Bucket] = _Lru(cache_size)
        self._similar: _Lru[tuple[object, ...], _Similar] = _Lru(cache_size)
        self._written: _Lru[tuple[object, ...], _Written] = _Lru(cache_size)

    def correlate(self, event: PendingEvent) -> Correlation | None:
        """The write to make for `event`, or None when the spam filter drops it."""
        now = self._clock.now()
        if not self._take_token(event.object_key, now):
            return None
        aggregated = self._is_aggregated(event, now)
        message = AGGREGATED_PREFIX + event.message if aggregated else event.message
        # Aggregated events share one Event object whatever their message; others de-duplicate
        # on the exact message.
        dedup_key = (
            event.object_key,
            event.type,
            event.reason,
            AGGREGATED_PREFIX if aggregated else event.message,
        )
        written = self._written.get(dedup_key)
        if written is None:
            written = _Written(count=0, name=None)
            self._written.put(dedup_key, written)
        written.count += 1
        return Correlation(event, message, written.count, written.name, dedup_key)

    def written(self, correlation: Correlation, name: str) -> None:
        """Remember the Event object's name so repeats update it."""
        entry = self._written.get(correlation.dedup_key)
        if entry is not None:
            entry.name = name

    def forget(self, correlation: Correlation) -> None:
        """The Event object vanished (expired after an hour): the next repeat creates a new one."""
        self._written.put(correlation.dedup_key, _Written(0, None))

    def _take_token(self, key: tuple[str, str, str, str], now: float) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = _Bucket(tokens=float(self._burst), updated=now)
            self._buckets.put(key, bucket)
        refilled = (now - bucket.updated) / self._refill_seconds
        bucket.tokens = min(float(self._burst), bucket.tokens + refilled)
        bucket.updated = now
        if bucket.tokens < 1.0:
            return False
        bucket.tokens -= 1.0
        return True

    def _is_aggregated(self, event: PendingEvent, now: float) -> bool:
        key = (event.object_key, event.type, event.reason)
        similar = self._similar.get(key)
        if similar is None or now - similar.first_seen > self._aggregate_window:
            similar = _Similar(first_seen=now)
            self._similar.put(key, similar)
        if event.message in similar.messages or len(similar.messages) < self._max_similar:
            similar.messages.add(event.message)
            return False
        return True
