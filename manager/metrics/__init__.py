"""Prometheus metrics with controller-runtime's names, and the `/metrics` endpoint."""

from manager.metrics.controller_runtime import ControllerMetrics, ReconcileOutcome
from manager.metrics.exporter import DEFAULT_METRICS_PORT, metrics_server

__all__ = [
    "DEFAULT_METRICS_PORT",
    "ControllerMetrics",
    "ReconcileOutcome",
    "metrics_server",
]
