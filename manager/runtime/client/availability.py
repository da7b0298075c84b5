"""Whether the API server is answering, and one signal for everything waiting on its return.

Backoff counts failed attempts, and while the API server is away every attempt fails: a key's
5 ms-doubling backoff (the work queue's) passes 10 s after a dozen failures, which a 3-second
restart of the API server is enough for (measured: the graphs of one test failed 14 times in 6 s
and were due back 41 s after the server was). The wait then outlasts the outage many times over,
and nothing the key did earned it.

So the first request that gets no answer marks the server away (`lost`), and `run` (a runnable
of the manager) probes `/readyz` while it is: one request per interval for the whole process,
however many keys and informers are waiting. At the first ready answer it marks the server back
and wakes every waiter: reflectors cut their backoff short (`sleep_until`), controllers retry the
keys that failed meanwhile (`wait_back`), both with the outage's failures forgotten. Ready, not
merely answering: a restarting API server answers 503 ("not all known HTTP paths installed") and
429 ("storage is (re)initializing") for a few seconds before `/readyz` turns 200. Custom
resources may still answer 429 a moment after it: what fails then backs off from the first step
again (measured, a 30 s outage: every Deployment of three graphs being created 1.5-3.2 s after the
API server answered again, against 6.1-67.5 s without this).

The probe interval is 1 s in a first outage and doubles with each outage that follows within
two minutes (to 30 s): a flapping API server wakes the waiters at most once per interval.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
from anyio.abc import TaskStatus

from manager.runtime.backoff import Backoff
from manager.runtime.clock import Clock, RealClock
from manager.runtime.logging import get_logger

__all__ = ["ApiAvailability", "Readiness"]

log = get_logger(__name__)

Readiness = Callable[[], Awaitable[bool]]
"""Asks the API server once whether it is ready; False when it does not answer or is not."""


class ApiAvailability:
    def __init__(self, probe: Readiness, clock: Clock | None = None) -> None:
        self._probe = probe
        self._clock: Clock = clock or RealClock()
        self._pace = Backoff(self._clock, initial=1.0, cap=30.0, jitter=0.0, reset_after=120.0)
        self._available = True
        self._lost_at = 0.0
        self.returns = 0
        """How many times the API server came back: a waiter that saw this change forgets the
        failures it counted before (a request in flight across the return, or a sleep that
        ended just before it, fails or retries after it and must not pay for the outage)."""
        # Created on first use: an anyio Event belongs to the event loop it was made in.
        self._back: anyio.Event | None = None
        self._gone: anyio.Event | None = None

    @property
    def available(self) -> bool:
        """False from a request that got no answer until the API server is ready again."""
        return self._available

    def lost(self) -> None:
        """A request got no answer (refused, reset, timed out)."""
        if not self._available:
            return
        self._available = False
        self._lost_at = self._clock.now()
        self._back = anyio.Event()
        self._gone_event().set()
        log.warning("API server not answering; waiting until it is ready again")

    async def wait_back(self) -> None:
        """Return once the API server is available (at once if it is now)."""
        if not self._available:
            await self._back_event().wait()

    async def wait_lost(self) -> None:
        """Return once the API server is unavailable (at once if it is now)."""
        if self._available:
            await self._gone_event().wait()

    async def sleep_until(self, clock: Clock, deadline: float) -> bool:
        """Sleep until `deadline` on `clock`, or until the API server is back if it is away now.
        True if its return ended the sleep."""
        if self._available:
            await clock.sleep_until(deadline)
            return False
        returned = False

        async def until_back() -> None:
            nonlocal returned
            await self.wait_back()
            returned = True
            sleepers.cancel_scope.cancel()

        async with anyio.create_task_group() as sleepers:
            sleepers.start_soon(until_back)
            await clock.sleep_until(deadline)
            sleepers.cancel_scope.cancel()
        return returned

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Probe while the API server is away; mark it back at its first ready answer."""
        task_status.started()
        while True:
            await self.wait_lost()
            interval = self._pace.next_delay()
            while True:
                await self._clock.sleep_until(self._clock.now() + interval)
                if await self._probe():
                    break
            self._mark_back()

    def _mark_back(self) -> None:
        self._available = True
        self.returns += 1
        self._gone = anyio.Event()
        self._back_event().set()
        log.info(
            "API server ready again",
            unavailable_seconds=round(self._clock.now() - self._lost_at, 1),
        )

    def _back_event(self) -> anyio.Event:
        if self._back is None:
            self._back = anyio.Event()
        return self._back

    def _gone_event(self) -> anyio.Event:
        if self._gone is None:
            self._gone = anyio.Event()
        return self._gone
