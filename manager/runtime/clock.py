"""Time as a seam: the queues and rate limiters read time only through a `Clock`.

Production code uses `RealClock` (the monotonic clock the event loop also uses). Tests use
`FakeClock`, whose time moves only when the test calls `advance`, so delays of minutes or hours
(rate-limiter backoff, `requeue_after`) are tested without waiting for them.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from typing import Protocol

import anyio
import anyio.lowlevel

__all__ = ["Clock", "FakeClock", "RealClock"]


class Clock(Protocol):
    """Monotonic time in seconds and a way to sleep until a point in that time."""

    def now(self) -> float:
        """Current monotonic time, in seconds."""
        ...

    async def sleep_until(self, deadline: float) -> None:
        """Return once `now() >= deadline` (immediately if it already is)."""
        ...


class RealClock:
    """The process's monotonic clock; asyncio's loop time uses the same source."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep_until(self, deadline: float) -> None:
        await anyio.sleep(max(0.0, deadline - time.monotonic()))


class FakeClock:
    """A clock that only moves when told to; sleepers wake when `advance` passes their deadline."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, anyio.Event]] = []
        self._sequence = itertools.count()

    def now(self) -> float:
        return self._now

    async def sleep_until(self, deadline: float) -> None:
        if deadline <= self._now:
            await anyio.lowlevel.checkpoint()
            return
        if math.isinf(deadline):
            await anyio.sleep_forever()
        wake = anyio.Event()
        heapq.heappush(self._sleepers, (deadline, next(self._sequence), wake))
        await wake.wait()

    def advance(self, seconds: float) -> None:
        """Move time forward and wake every sleeper whose deadline has been reached."""
        if seconds < 0:
            raise ValueError("a monotonic clock cannot go backwards")
        self._now += seconds
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, wake = heapq.heappop(self._sleepers)
            wake.set()

    async def settle(self, seconds: float = 0) -> None:
        """Let every task run until blocked, move time forward by `seconds`, and again: one
        deterministic step of a test driven by this clock."""
        await anyio.wait_all_tasks_blocked()
        if seconds:
            self.advance(seconds)
            await anyio.wait_all_tasks_blocked()

    @property
    def sleepers(self) -> int:
        """How many tasks are sleeping on this clock (cancelled sleepers count until woken)."""
        return len(self._sleepers)
