"""Work-queue metrics with controller-runtime's names and labels, so existing dashboards work.

The queue reports five moments of an item's life to a `QueueMetrics`: it was queued (`added`),
it moved up to a higher priority (`moved_up`), a worker took it (`taken`), the worker finished
(`done`), and a delayed add was requested (`retried`). The depth is counted per priority, as
controller-runtime's priority queue labels it (`priority="-100"`): how much of a backlog is work
that can wait. A queue's priorities are the few its controller uses, so the label stays small.
`PrometheusQueueMetrics` turns them into the `workqueue_*` series on the default registry;
`NoQueueMetrics` is for queues nobody scrapes (tests, benchmarks of the bare queue).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol

from prometheus_client import Counter, Gauge, Histogram

from manager.runtime.clock import Clock, RealClock
from manager.runtime.workqueue.priorities import DEFAULT_PRIORITY

__all__ = ["NoQueueMetrics", "PrometheusQueueMetrics", "QueueMetrics"]

# 10 ns to 1000 s in decades: controller-runtime's buckets for both queue and work durations.
DURATION_BUCKETS = tuple(1e-8 * 10**k for k in range(12))
_LABELS = ("name", "controller")

DEPTH = Gauge("workqueue_depth", "Current depth of workqueue", [*_LABELS, "priority"])
ADDS = Counter("workqueue_adds_total", "Total number of adds handled by workqueue", _LABELS)
QUEUE_DURATION = Histogram(
    "workqueue_queue_duration_seconds",
    "How long in seconds an item stays in workqueue before being requested",
    _LABELS,
    buckets=DURATION_BUCKETS,
)
WORK_DURATION = Histogram(
    "workqueue_work_duration_seconds",
    "How long in seconds processing an item from workqueue takes",
    _LABELS,
    buckets=DURATION_BUCKETS,
)
UNFINISHED_WORK = Gauge(
    "workqueue_unfinished_work_seconds",
    "How many seconds of work has been done that is in progress and hasn't been observed by "
    "work_duration. Large values indicate stuck threads.",
    _LABELS,
)
LONGEST_RUNNING = Gauge(
    "workqueue_longest_running_processor_seconds",
    "How many seconds has the longest running processor for workqueue been running",
    _LABELS,
)
RETRIES = Counter(
    "workqueue_retries_total", "Total number of retries handled by workqueue", _LABELS
)


class QueueMetrics(Protocol):
    """What a queue tells its metrics; every call is cheap and never fails."""

    def added(self, item: Hashable, priority: int) -> None: ...
    def moved_up(self, old: int, new: int) -> None: ...
    def taken(self, item: Hashable, priority: int) -> None: ...
    def done(self, item: Hashable) -> None: ...
    def retried(self) -> None: ...


class NoQueueMetrics:
    """Records nothing."""

    def added(self, item: Hashable, priority: int) -> None:
        pass

    def moved_up(self, old: int, new: int) -> None:
        pass

    def taken(self, item: Hashable, priority: int) -> None:
        pass

    def done(self, item: Hashable) -> None:
        pass

    def retried(self) -> None:
        pass


class PrometheusQueueMetrics:
    """The `workqueue_*` series of one queue; `name` and `controller` carry the same value.

    The two "in progress" gauges are computed when scraped, from the start times of the items
    being processed, so they are exact at scrape time without a background loop.
    """

    def __init__(self, name: str, clock: Clock | None = None) -> None:
        self._clock = clock or RealClock()
        self._queued_at: dict[Hashable, float] = {}
        self._processing_since: dict[Hashable, float] = {}
        self._labels = labels = {"name": name, "controller": name}
        self._depths: dict[int, Gauge] = {}
        self._depth(DEFAULT_PRIORITY)  # the series a dashboard reads exists, at 0, from the start
        self._adds = ADDS.labels(**labels)
        self._queue_duration = QUEUE_DURATION.labels(**labels)
        self._work_duration = WORK_DURATION.labels(**labels)
        self._retries = RETRIES.labels(**labels)
        UNFINISHED_WORK.labels(**labels).set_function(self.unfinished_work_seconds)
        LONGEST_RUNNING.labels(**labels).set_function(self.longest_running_seconds)

    def added(self, item: Hashable, priority: int) -> None:
        self._adds.inc()
        self._depth(priority).inc()
        self._queued_at.setdefault(item, self._clock.now())

    def moved_up(self, old: int, new: int) -> None:
        self._depth(old).dec()
        self._depth(new).inc()

    def taken(self, item: Hashable, priority: int) -> None:
        now = self._clock.now()
        self._depth(priority).dec()
        queued_at = self._queued_at.pop(item, None)
        if queued_at is not None:
            self._queue_duration.observe(now - queued_at)
        self._processing_since[item] = now

    def done(self, item: Hashable) -> None:
        started = self._processing_since.pop(item, None)
        if started is not None:
            self._work_duration.observe(self._clock.now() - started)

    def retried(self) -> None:
        self._retries.inc()

    def _depth(self, priority: int) -> Gauge:
        depth = self._depths.get(priority)
        if depth is None:
            depth = self._depths[priority] = DEPTH.labels(**self._labels, priority=str(priority))
        return depth

    def unfinished_work_seconds(self) -> float:
        now = self._clock.now()
        return sum(now - started for started in self._processing_since.values())

    def longest_running_seconds(self) -> float:
        now = self._clock.now()
        return max((now - started for started in self._processing_since.values()), default=0.0)
