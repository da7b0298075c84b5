"""A bounded cache of review answers, each kept for its own time to live.

The metrics endpoint asks the API server who a bearer token belongs to (TokenReview) and whether
that user may `get /metrics` (SubjectAccessReview). Prometheus presents the same token every
scrape, so the answers are kept for a while, as the Kubernetes libraries behind
controller-runtime's metrics filter keep them. The cache holds at most `max_entries` answers and
drops the least recently used one first, so a client sending a new token per request costs
memory that stays bounded. `SharedReviews` makes concurrent requests that need the same answer
wait for one review instead of each asking (a burst of scrapes with a new token makes one
TokenReview, as client-go's token cache does).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio

from manager.runtime.clock import Clock, RealClock

__all__ = ["ReviewCache", "SharedReviews"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


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


@dataclass(slots=True)
class _Flight:
    done: anyio.Event = field(default_factory=anyio.Event)
    failed: bool = False


class SharedReviews:
    """One review at a time per key; concurrent callers share its outcome.

    A review that raises `failure` fails its waiters too (with a new `failure`), so a burst of
    requests against a silent API server waits for one timeout, not one each. A review that is
    cancelled (its client went away) hands over: the next waiter makes its own.
    """

    def __init__(self, failure: type[Exception]) -> None:
        self._failure = failure
        self._flights: dict[Hashable, _Flight] = {}

    def __len__(self) -> int:
        return len(self._flights)

    async def share(
        self, key: Hashable, cached: Callable[[], T | None], review: Callable[[], Awaitable[T]]
    ) -> T:
        """`cached()` if it has the answer, else the outcome of the one `review` under way for
        `key`, started here if none is; `review` stores its answer where `cached` finds it."""
        while (answer := cached()) is None:
            flight = self._flights.get(key)
            if flight is None:
                flight = self._flights[key] = _Flight()
                try:
                    return await review()
                except self._failure:
                    flight.failed = True
                    raise
                finally:
                    del self._flights[key]
                    flight.done.set()
            await flight.done.wait()
            if flight.failed:
                raise self._failure("a concurrent review of the same request failed")
        return answer
