"""Prometheus metrics with controller-runtime's names, and the `/metrics` endpoint (plain HTTP,
or HTTPS with authentication and authorisation delegated to the API server)."""

from manager.runtime.metrics.controller_runtime import ControllerMetrics, ReconcileOutcome
from manager.runtime.metrics.errors import ReviewError
from manager.runtime.metrics.exporter import (
    DEFAULT_METRICS_PORT,
    DEFAULT_SECURE_METRICS_PORT,
    SecureServing,
    metrics_server,
)
from manager.runtime.metrics.filters import authentication_and_authorization, bearer_token
from manager.runtime.metrics.review_cache import ReviewCache, SharedReviews
from manager.runtime.metrics.reviews import (
    SUBJECT_ACCESS_REVIEW,
    TOKEN_REVIEW,
    Decision,
    DelegatedAuth,
    ReviewTimes,
    UserInfo,
)
from manager.runtime.metrics.serving_certificate import (
    CertificateFiles,
    ServingCertificate,
)

__all__ = [
    "DEFAULT_METRICS_PORT",
    "DEFAULT_SECURE_METRICS_PORT",
    "SUBJECT_ACCESS_REVIEW",
    "TOKEN_REVIEW",
    "CertificateFiles",
    "ControllerMetrics",
    "Decision",
    "DelegatedAuth",
    "ReconcileOutcome",
    "ReviewCache",
    "ReviewError",
    "ReviewTimes",
    "SecureServing",
    "ServingCertificate",
    "SharedReviews",
    "UserInfo",
    "authentication_and_authorization",
    "bearer_token",
    "metrics_server",
]
