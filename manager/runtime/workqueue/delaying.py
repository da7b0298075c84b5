"""A work queue that can also add an item after a delay (client-go's delaying queue).

Waiting items sit in a heap ordered by ready time; `run` moves them into the queue when their
time comes. An item waiting twice keeps the earlier ready time, so a later `add_after` can
bring a retry forward but never push it back. `run` sleeps until the earliest ready time and is
woken early (by cancelling that sleep) when an earlier item arrives, so it needs no polling
heartbeat. Time comes from a `Clock`, which lets tests move it by hand.
"""

from __future__ import annotations

import heapq
import itertools
import math

import anyio
from anyio.abc import TaskStatus

from manager.runtime.clock import Clock, RealClock
from manager.runtime.workqueue.queue import DEFAULT_PRIORITY, Queue, T
from manager.runtime.workqueue.queue_metrics import QueueMetrics

__all__ = ["DelayingQueue"]


class DelayingQueue(Queue[T]):
    """`Queue` plus `add_after`; `run` must be running for delayed items to arrive."""

    def __init__(self, *, clock: Clock | None = None, metrics: QueueMetrics | None = None) -> None:
        super().__init__(metrics=metrics)
        self._clock: Clock = clock or RealClock()
        self._ready_at: dict[T, float] = {}
        self._heap: list[tuple[float, int, T, int]] = []
        self._sequence = itertools.count()
        self._sleep_scope: anyio.CancelScope | None = None
        self._sleeping_until = math.inf

    def add_after(self, item: T, delay: float, *, priority: int = DEFAULT_PRIORITY) -> None:
        """Add `item` at `priority` once `delay` seconds have passed; at once if `delay <= 0`."""
        if self.shutting_down:
            return
        self._metrics.retried()  # client-go counts every delayed add as a retry
        if delay <= 0:
            self.add(item, priority=priority)
            return
        ready_at = self._clock.now() + delay
        current = self._ready_at.get(item)
        if current is not None and current <= ready_at:
            return
        self._ready_at[item] = ready_at
        heapq.heappush(self._heap, (ready_at, next(self._sequence), item, priority))
        if ready_at < self._sleeping_until and self._sleep_scope is not None:
            self._sleep_scope.cancel()

    @property
    def waiting(self) -> int:
        """Items waiting for their delay to pass."""
        return len(self._ready_at)

    def shut_down(self) -> None:
        super().shut_down()
        if self._sleep_scope is not None:
            self._sleep_scope.cancel()

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Move waiting items into the queue as they become ready, until shut down or cancelled."""
        task_status.started()
        while not self.shutting_down:
            self._add_ready_items()
            self._sleeping_until = self._heap[0][0] if self._heap else math.inf
            with anyio.CancelScope() as self._sleep_scope:
                await self._clock.sleep_until(self._sleeping_until)
            self._sleep_scope = None

    def _add_ready_items(self) -> None:
        now = self._clock.now()
        while self._heap and self._heap[0][0] <= now:
            ready_at, _, item, priority = heapq.heappop(self._heap)
            if self._ready_at.get(item) != ready_at:
                continue  # superseded by an earlier ready time already handled
            del self._ready_at[item]
            self.add(item, priority=priority)
