"""Jittered exponential backoff for reconnecting watches (client-go's reflector defaults).

0.8 s doubling to 30 s, each delay stretched by up to 100 % random jitter (capped at 30 s), and
reset to 0.8 s once 2 minutes pass without a failure: a flapping API server sees at most about
one list or watch per 15 s per informer, and a healthy one that hiccups once recovers at once.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from manager.runtime.clock import Clock

__all__ = ["Backoff"]


class Backoff:
    def __init__(
        self,
        clock: Clock,
        *,
        initial: float = 0.8,
        cap: float = 30.0,
        factor: float = 2.0,
        jitter: float = 1.0,
        reset_after: float = 120.0,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self._clock = clock
        self._initial = initial
        self._cap = cap
        self._factor = factor
        self._jitter = jitter
        self._reset_after = reset_after
        self._rand = rand
        self._base = initial
        self._last_failure: float | None = None

    def next_delay(self) -> float:
        """The delay before the next attempt, after one more failure."""
        now = self._clock.now()
        if self._last_failure is not None and now - self._last_failure >= self._reset_after:
            self._base = self._initial
        self._last_failure = now
        delay = min(self._base * (1.0 + self._jitter * self._rand()), self._cap)
        self._base = min(self._base * self._factor, self._cap)
        return delay

    def reset(self) -> None:
        """Forget the failures so far: the next delay is the initial one again."""
        self._base = self._initial
        self._last_failure = None

    async def wait(self) -> float:
        """Sleep for `next_delay()` on the clock and return how long that was."""
        delay = self.next_delay()
        await self._clock.sleep_until(self._clock.now() + delay)
        return delay
