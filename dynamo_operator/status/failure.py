"""A failure the reconciler reports in a status instead of a readiness verdict."""

from __future__ import annotations

from dataclasses import dataclass

from dynamo_operator.status.reasons import Reasons
from dynamo_operator.validation import ValidationResult


@dataclass(frozen=True, slots=True)
class StatusFailure:
    """Reason and message of a failed reconcile; the object's state becomes ``failed``."""

    reason: str
    message: str

    @classmethod
    def invalid(cls, result: ValidationResult) -> StatusFailure:
        """The spec breaks a rule: terminal until the user changes it. The message lists every
        error as ``<field path>: <why>``."""
        return cls(Reasons.VALIDATION_FAILED, f"Validation failed: {result.summary()}")

    @classmethod
    def reconcile_error(cls, message: str) -> StatusFailure:
        """Reconciling failed (an API error, a child that cannot be built); retried with backoff."""
        return cls(Reasons.RECONCILE_FAILED, message)
