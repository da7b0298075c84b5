"""The controller: workers that take keys from a rate-limited queue and call the reconciler.

Outcomes map to queue operations exactly as in controller-runtime's `reconcileHandler`:

* an exception: `add_rate_limited` (backoff grows per key), result label `error`;
* a `TerminalError`: counted and logged, not retried, result label `error`;
* `Result(requeue_after=d)`: `forget` then `add_after(d)`, label `requeue_after`;
* `Result(requeue=True)`: `add_rate_limited`, label `requeue`;
* otherwise: `forget`, label `success`.

Extra workers for work that can wait (`low_priority_workers`): they take only keys queued below
the default priority, only while nothing more urgent is queued and `hold_low_priority()` says
nothing more urgent waits elsewhere (another controller's queue). Such work (a Service, a
status) mostly waits on the API server, not on the operator's CPU: while the cluster is busy
making pods, eight workers writing one Service each at a second or two of latency drain a few a
second, and thousands are left for the end.

One departure, for the API server's outages: a key that fails while the API server is away
(`ApiAvailability`) is also retried, its failures forgotten, as soon as the server is ready
again. Its backoff grew with every attempt the outage failed, and would keep it waiting many
times longer than the outage lasted.

An exception in one reconcile never stops the controller or other keys: the worker boundary is
the one place that catches bare `Exception`. Cancellation is never caught.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import anyio
from anyio.abc import TaskStatus

from manager.runtime.client import ApiAvailability
from manager.runtime.client.errors import KubeError
from manager.runtime.clock import Clock, RealClock
from manager.runtime.controller.errors import CacheSyncTimeoutError, is_terminal
from manager.runtime.controller.reconcile import (
    Reconciler,
    ReconcilerFunc,
    Request,
    Result,
    taken_at,
)
from manager.runtime.logging import get_logger, reconcile_context
from manager.runtime.metrics.controller_runtime import ControllerMetrics
from manager.runtime.workqueue import (
    DEFAULT_PRIORITY,
    PrometheusQueueMetrics,
    QueueShutDown,
    RateLimiter,
    RateLimitingQueue,
)

__all__ = ["Controller", "EventSource"]

log = get_logger(__name__)

HOLD_POLL = 0.25
"""Seconds between looks, while held, of an extra worker for waiting work."""


class EventSource(Protocol):
    """An informer as the controller sees it: something that feeds handlers and syncs."""

    def add_event_handler(self, handler: Any) -> None: ...

    async def wait_for_sync(self) -> None: ...


class Controller:
    """Runs `max_concurrent_reconciles` workers over one queue of `Request`s.

    `needs_leader_election` (default True) tells the manager to start it only on the leader.
    """

    def __init__(
        self,
        name: str,
        reconciler: Reconciler | ReconcilerFunc,
        *,
        max_concurrent_reconciles: int = 1,
        rate_limiter: RateLimiter[Request] | None = None,
        reconcile_timeout: float | None = None,
        cache_sync_timeout: float = 120.0,
        needs_leader_election: bool = True,
        clock: Clock | None = None,
        api_availability: ApiAvailability | None = None,
        low_priority_workers: int = 0,
        hold_low_priority: Callable[[], bool] = lambda: False,
    ) -> None:
        if max_concurrent_reconciles < 1:
            raise ValueError("max_concurrent_reconciles must be at least 1")
        if low_priority_workers < 0:
            raise ValueError("low_priority_workers must not be negative")
        self.name = name
        self.needs_leader_election = needs_leader_election
        self.max_concurrent_reconciles = max_concurrent_reconciles
        self.low_priority_workers = low_priority_workers
        self._hold_low_priority = hold_low_priority
        self._clock = clock or RealClock()
        self.queue: RateLimitingQueue[Request] = RateLimitingQueue(
            rate_limiter, clock=clock, metrics=PrometheusQueueMetrics(name, clock)
        )
        self._reconcile = reconciler.reconcile if hasattr(reconciler, "reconcile") else reconciler
        self._reconcile_timeout = reconcile_timeout
        self._cache_sync_timeout = cache_sync_timeout
        self._sources: list[EventSource] = []
        self._metrics = ControllerMetrics(name, max_concurrent_reconciles)
        self._stopping = False
        self._api_availability = api_availability
        self._failed_while_api_away: set[Request] = set()

    def watch(self, source: EventSource, handler: Any) -> None:
        """Feed `source`'s events to `handler` (which enqueues requests); wait for its sync."""
        source.add_event_handler(handler)
        self._sources.append(source)

    @property
    def sources(self) -> Sequence[EventSource]:
        return tuple(self._sources)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Wait for the sources to sync, then run the workers until cancelled or drained."""
        await self._wait_for_sources()
        log.info(
            "starting workers",
            controller=self.name,
            workers=self.max_concurrent_reconciles,
            low_priority_workers=self.low_priority_workers,
        )
        async with anyio.create_task_group() as services:
            await services.start(self.queue.run)
            if self._api_availability is not None:
                services.start_soon(self._retry_when_api_is_back, self._api_availability)
            async with anyio.create_task_group() as workers:
                for _ in range(self.max_concurrent_reconciles):
                    workers.start_soon(self._work)
                for _ in range(self.low_priority_workers):
                    workers.start_soon(self._work_low_priority)
                task_status.started()
            services.cancel_scope.cancel()  # workers are gone: stop moving delayed keys
        log.info("all workers finished", controller=self.name)

    async def drain(self) -> None:
        """Stop taking new keys and return once every in-flight reconcile has finished."""
        self._stopping = True
        await self.queue.shut_down_with_drain()

    async def _wait_for_sources(self) -> None:
        try:
            with anyio.fail_after(self._cache_sync_timeout):
                for source in self._sources:
                    await source.wait_for_sync()
        except TimeoutError:
            raise CacheSyncTimeoutError(
                f"controller {self.name!r}: sources did not sync in {self._cache_sync_timeout}s"
            ) from None

    async def _retry_when_api_is_back(self, availability: ApiAvailability) -> None:
        while True:
            await availability.wait_lost()
            await availability.wait_back()
            keys, self._failed_while_api_away = self._failed_while_api_away, set()
            if not keys:
                continue
            log.info(
                "retrying what failed while the API server was away",
                controller=self.name,
                keys=len(keys),
                sample=sorted(str(key) for key in keys)[:10],
            )
            for key in keys:
                self.queue.forget(key)
                self.queue.add(key)

    async def _work(self) -> None:
        while await self._take_one(None):
            pass

    async def _work_low_priority(self) -> None:
        while not self.queue.shutting_down:
            if self._hold_low_priority():
                await self._clock.sleep_until(self._clock.now() + HOLD_POLL)
            elif not await self._take_one(DEFAULT_PRIORITY):
                return

    async def _take_one(self, below: int | None) -> bool:
        """Take one key (only one queued `below` that priority, if given) and handle it; False
        once the worker should stop."""
        try:
            request = await self.queue.get(below=below)
        except QueueShutDown:
            return False
        try:
            if self._stopping:
                return False  # drain: finish what is in flight, start nothing new
            await self._handle(request)
        finally:
            self.queue.done(request)
        return True

    async def _handle(self, request: Request) -> None:
        reconcile_id = str(uuid.uuid4())
        with reconcile_context(
            controller=self.name,
            namespace=request.namespace,
            name=request.name,
            reconcile_id=reconcile_id,
        ):
            self._metrics.active_workers.inc()
            started = time.perf_counter()
            try:
                with taken_at(self.queue.taken_at(request)):
                    await self._reconcile_and_requeue(request)
            finally:
                self._metrics.reconcile_time.observe(time.perf_counter() - started)
                self._metrics.active_workers.dec()

    async def _reconcile_and_requeue(self, request: Request) -> None:
        timed_out = False
        try:
            with anyio.CancelScope() as scope:
                if self._reconcile_timeout is not None:
                    scope.deadline = anyio.current_time() + self._reconcile_timeout
                result = await self._reconcile(request) or Result()
            if scope.cancelled_caught:
                timed_out = True
                raise TimeoutError(f"reconcile took longer than {self._reconcile_timeout}s")
        except Exception as error:  # the worker boundary: one key's failure stays its own
            terminal = is_terminal(error)
            self._metrics.failed(terminal=terminal, timed_out=timed_out)
            if not terminal:
                self.queue.add_rate_limited(request)
                if self._api_availability is not None and not self._api_availability.available:
                    self._failed_while_api_away.add(request)
            if isinstance(error, KubeError):  # the API's answer, or none: the message says it all
                log.error(
                    "reconciler error",
                    terminal=terminal,
                    error_type=type(error).__name__,
                    err=str(error),
                )
            else:  # a bug: where it happened matters
                log.error("reconciler error", terminal=terminal, exc_info=error)
            return
        if result.requeue_after:
            self.queue.forget(request)
            priority = DEFAULT_PRIORITY if result.priority is None else result.priority
            self.queue.add_after(request, result.requeue_after, priority=priority)
            self._metrics.reconciled("requeue_after")
        elif result.requeue:
            self.queue.add_rate_limited(request)
            self._metrics.reconciled("requeue")
        else:
            self.queue.forget(request)
            self._metrics.reconciled("success")
