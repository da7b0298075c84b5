"""controller-runtime's controller metrics, with its exact names, labels and buckets.

Python has no panics distinct from errors, so `..._reconcile_panics_total` is not exported.
Registered on prometheus_client's default registry, so `/metrics` shows them beside the
workqueue, REST client, leader election and webhook series that other modules register there.
`ControllerMetrics` binds the series to one controller name and pre-initialises every
`result` label to 0, as controller-runtime does, so rates work from the first scrape.
"""

from __future__ import annotations

from typing import Literal

from prometheus_client import Counter, Gauge, Histogram

__all__ = ["RECONCILE_RESULTS", "ControllerMetrics", "ReconcileOutcome"]

ReconcileOutcome = Literal["success", "error", "requeue", "requeue_after"]
RECONCILE_RESULTS: tuple[ReconcileOutcome, ...] = ("success", "error", "requeue", "requeue_after")

RECONCILE_TIME_BUCKETS = (
    0.005,
    0.01,
    0.025,
    0.05,
    *(round(0.1 + 0.05 * step, 2) for step in range(9)),  # 0.1 .. 0.5
    0.6,
    0.7,
    0.8,
    0.9,
    1.0,
    1.25,
    1.5,
    1.75,
    2.0,
    2.5,
    3.0,
    3.5,
    4.0,
    4.5,
    5.0,
    6.0,
    7.0,
    8.0,
    9.0,
    10.0,
    15.0,
    20.0,
    25.0,
    30.0,
    40.0,
    50.0,
    60.0,
)

RECONCILE_TOTAL = Counter(
    "controller_runtime_reconcile_total",
    "Total number of reconciliations per controller",
    ["controller", "result"],
)
RECONCILE_ERRORS = Counter(
    "controller_runtime_reconcile_errors_total",
    "Total number of reconciliation errors per controller",
    ["controller"],
)
TERMINAL_RECONCILE_ERRORS = Counter(
    "controller_runtime_terminal_reconcile_errors_total",
    "Total number of terminal reconciliation errors per controller",
    ["controller"],
)
RECONCILE_TIMEOUTS = Counter(
    "controller_runtime_reconcile_timeouts_total",
    "Total number of reconciliation timeouts per controller",
    ["controller"],
)
RECONCILE_TIME = Histogram(
    "controller_runtime_reconcile_time_seconds",
    "Length of time per reconciliation per controller",
    ["controller"],
    buckets=RECONCILE_TIME_BUCKETS,
)
MAX_CONCURRENT_RECONCILES = Gauge(
    "controller_runtime_max_concurrent_reconciles",
    "Maximum number of concurrent reconciles per controller",
    ["controller"],
)
ACTIVE_WORKERS = Gauge(
    "controller_runtime_active_workers",
    "Number of currently used workers per controller",
    ["controller"],
)


class ControllerMetrics:
    """The controller_runtime_* series of one controller."""

    def __init__(self, controller: str, max_concurrent_reconciles: int) -> None:
        self._results = {
            result: RECONCILE_TOTAL.labels(controller=controller, result=result)
            for result in RECONCILE_RESULTS
        }
        self._errors = RECONCILE_ERRORS.labels(controller=controller)
        self._terminal_errors = TERMINAL_RECONCILE_ERRORS.labels(controller=controller)
        self._timeouts = RECONCILE_TIMEOUTS.labels(controller=controller)
        self.reconcile_time = RECONCILE_TIME.labels(controller=controller)
        self.active_workers = ACTIVE_WORKERS.labels(controller=controller)
        MAX_CONCURRENT_RECONCILES.labels(controller=controller).set(max_concurrent_reconciles)

    def reconciled(self, outcome: ReconcileOutcome) -> None:
        self._results[outcome].inc()

    def failed(self, *, terminal: bool, timed_out: bool) -> None:
        """One failed reconcile; terminal errors count as errors too, as in controller-runtime."""
        self._results["error"].inc()
        self._errors.inc()
        if terminal:
            self._terminal_errors.inc()
        if timed_out:
            self._timeouts.inc()
