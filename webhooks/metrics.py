"""Webhook metrics, on prometheus_client's global registry.

Two families side by side so existing dashboards work unchanged: controller-runtime's
``controller_runtime_webhook_*`` (labelled by path and HTTP code) and the upstream operator's
``dynamo_operator_webhook_*`` (labelled by kind, operation and outcome). The manager's ``/metrics``
serves the global registry, so these appear there without this package importing the manager.
"""

from __future__ import annotations

from enum import StrEnum

from prometheus_client import Counter, Gauge, Histogram

from dynamo_operator.validation.result import IssueReason

REQUESTS_TOTAL = Counter(
    "controller_runtime_webhook_requests_total",
    "Total number of admission requests by HTTP status code.",
    ["webhook", "code"],
)
LATENCY_SECONDS = Histogram(
    "controller_runtime_webhook_latency_seconds",
    "Histogram of the latency of processing admission requests",
    ["webhook"],
)
IN_FLIGHT = Gauge(
    "controller_runtime_webhook_requests_in_flight",
    "Current number of admission requests being served.",
    ["webhook"],
)
DURATION_SECONDS = Histogram(
    "dynamo_operator_webhook_duration_seconds",
    "Duration of admission validation by resource type and operation.",
    ["resource_type", "operation"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
DECISIONS_TOTAL = Counter(
    "dynamo_operator_webhook_requests_total",
    "Admission requests by resource type, operation and result (allowed or denied).",
    ["resource_type", "operation", "result"],
)
DENIALS_TOTAL = Counter(
    "dynamo_operator_webhook_denials_total",
    "Denied admission requests by resource type, operation and reason.",
    ["resource_type", "operation", "reason"],
)


class RequestProblem(StrEnum):
    """Denial reasons that are not about the object's content (those come from IssueReason)."""

    MALFORMED_REQUEST = "malformed_request"
    UNKNOWN_KIND = "unknown_kind"
    INTERNAL_ERROR = "internal_error"


DenialReason = IssueReason | RequestProblem

# Operations outside this set (only possible in a malformed review) share one label value so a
# hostile client cannot create unbounded series.
_KNOWN_OPERATIONS = frozenset({"CREATE", "UPDATE", "DELETE", "CONNECT"})


def operation_label(operation: str | None) -> str:
    return operation if operation in _KNOWN_OPERATIONS else "UNKNOWN"


def record_decision(
    resource_type: str, operation: str | None, *, denial: DenialReason | None
) -> None:
    operation = operation_label(operation)
    DECISIONS_TOTAL.labels(
        resource_type, operation, "allowed" if denial is None else "denied"
    ).inc()
    if denial is not None:
        DENIALS_TOTAL.labels(resource_type, operation, denial.value).inc()
