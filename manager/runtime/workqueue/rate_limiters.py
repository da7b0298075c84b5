"""Rate limiters: how long to wait before retrying an item (client-go's `default_rate_limiters`).

A rate limiter answers `when(item)` (the delay before the next retry, recording one more
failure), `forget(item)` (the item succeeded: clear its failures) and `num_requeues(item)`.
The controller default, `default_controller_rate_limiter`, is the larger of a per-item
exponential backoff (5 ms doubling to 1000 s), so one failing key backs off alone, and an
overall token bucket (10 per second, burst 100), so many failing keys cannot flood the API.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, Protocol, TypeVar

from manager.runtime.clock import Clock, RealClock

__all__ = [
    "BucketRateLimiter",
    "ItemExponentialFailureRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "default_controller_rate_limiter",
]

T = TypeVar("T", bound=Hashable)
T_contra = TypeVar("T_contra", bound=Hashable, contravariant=True)


class RateLimiter(Protocol[T_contra]):
    def when(self, item: T_contra) -> float:
        """Seconds to wait before retrying `item`; counts one more failure."""
        ...

    def forget(self, item: T_contra) -> None:
        """Stop tracking `item` (it succeeded); its next failure starts from the base delay."""
        ...

    def num_requeues(self, item: T_contra) -> int:
        """Failures recorded for `item` since it was last forgotten."""
        ...


class ItemExponentialFailureRateLimiter(Generic[T]):
    """`base * 2**failures`, capped at `max_delay`, counted per item."""

    def __init__(self, base_delay: float = 0.005, max_delay: float = 1000.0) -> None:
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._failures: dict[T, int] = {}

    def when(self, item: T) -> float:
        failures = self._failures.get(item, 0)
        self._failures[item] = failures + 1
        # Past 2**64 the float would overflow long after the cap applies; stop doubling there.
        if failures >= 64:
            return self._max_delay
        return min(self._base_delay * 2.0**failures, self._max_delay)

    def forget(self, item: T) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: T) -> int:
        return self._failures.get(item, 0)


class BucketRateLimiter(Generic[T]):
    """A token bucket shared by all items: `qps` tokens per second, at most `burst` saved up.

    Each `when` reserves one token, as golang.org/x/time/rate's `Reserve` does: the bucket may go
    into debt, and the delay is the time until the debt is paid back. It tracks no items.
    """

    def __init__(self, qps: float = 10.0, burst: int = 100, clock: Clock | None = None) -> None:
        if qps <= 0 or burst < 1:
            raise ValueError("a token bucket needs qps > 0 and burst >= 1")
        self._qps = qps
        self._burst = float(burst)
        self._clock: Clock = clock or RealClock()
        self._tokens = float(burst)
        self._last = self._clock.now()

    def when(self, item: T) -> float:
        now = self._clock.now()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._qps)
        self._last = now
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self._qps

    def forget(self, item: T) -> None:
        pass

    def num_requeues(self, item: T) -> int:
        return 0


class MaxOfRateLimiter(Generic[T]):
    """Asks every limiter (so each records the failure) and waits for the longest answer."""

    def __init__(self, *limiters: RateLimiter[T]) -> None:
        if not limiters:
            raise ValueError("MaxOfRateLimiter needs at least one limiter")
        self._limiters = limiters

    def when(self, item: T) -> float:
        return max([limiter.when(item) for limiter in self._limiters])

    def forget(self, item: T) -> None:
        for limiter in self._limiters:
            limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return max(limiter.num_requeues(item) for limiter in self._limiters)


def default_controller_rate_limiter(clock: Clock | None = None) -> MaxOfRateLimiter[T]:
    """client-go's `DefaultTypedControllerRateLimiter`: max(5 ms..1000 s per item, 10 qps/100)."""
    return MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(0.005, 1000.0),
        BucketRateLimiter(qps=10.0, burst=100, clock=clock),
    )
