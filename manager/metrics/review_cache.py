"""A bounded cache of review answers, each kept for its own time to live.

The metrics endpoint asks the API server who a bearer token belongs to (TokenReview) and whether
that user may `get /metrics` (SubjectAccessReview). Prometheus presents the same token every
scrape, so the answers are kept for a while, as the Kubernetes libraries behind
controller-runtime's metrics filter keep them. The cache holds at most `max_entries` answers and
drops the least recently used one first, so a client sending a new token per request costs
memory that stays bounded.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

from manager.clock import Clock, RealClock

__all__ = ["ReviewCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ReviewCache(Generic[K, V]):
    """Least-recently-used answers, each forgotten `ttl` seconds after it was stored."""

    def __init__(self, max_entries: int, *, clock: Clock | None = None) -> None:
        if max_entries < 1:
            raise ValueError("a review cache holds at least one entry")
        self.max_entries = max_entries
        self._clock = clock or RealClock()
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        """The answer stored under `key`, or None when there is none or it has expired."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, value = entry
        if self._clock.now() >= expires:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V, ttl: float) -> None:
        """Keep `value` for `ttl` seconds; a zero or negative `ttl` keeps nothing."""
        if ttl <= 0:
            self._entries.pop(key, None)
            return
        self._entries[key] = (self._clock.now() + ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
