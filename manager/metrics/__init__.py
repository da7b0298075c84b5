"""Prometheus metrics with controller-runtime's names, and the `/metrics` endpoint."""

from manager.metrics.controller_runtime import (
    RECONCILE_RESULTS,
    ControllerMetrics,
    ReconcileOutcome,
)

__all__ = ["RECONCILE_RESULTS", "ControllerMetrics", "ReconcileOutcome"]
