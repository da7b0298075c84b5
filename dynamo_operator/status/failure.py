"""A failure the reconciler reports in a status instead of a readiness verdict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from dynamo_operator.status.reasons import Reasons


class Verdict(Protocol):
    """A refused validation (`dynamo_operator.validation.ValidationResult`), as status sees it:
    validation stands on builders, which stand on status, so status does not import it."""

    def summary(self) -> str: ...


@dataclass(frozen=True, slots=True)
class StatusFailure:
    """Reason and message of a failed reconcile; the object's state becomes ``failed``."""

    reason: str
    message: str

    @classmethod
    def invalid(cls, result: Verdict) -> StatusFailure:
        """The spec breaks a rule: terminal until the user changes it. The message lists every
        error as ``<field path>: <why>``."""
        return cls(Reasons.VALIDATION_FAILED, f"Validation failed: {result.summary()}")

    @classmethod
    def reconcile_error(cls, message: str) -> StatusFailure:
        """Reconciling failed (an API error, a child that cannot be built); retried with backoff."""
        return cls(Reasons.RECONCILE_FAILED, message)
