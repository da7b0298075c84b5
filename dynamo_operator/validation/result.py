"""The outcome of validating one object: errors that block it, warnings that do not.

Every issue names the field path (dotted, as a user writes it in YAML, e.g.
``spec.services.VllmWorker.multinode.nodeCount``) and a human reason, plus a short machine reason
that webhooks turn into metric labels and reconcilers into condition reasons.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class IssueReason(StrEnum):
    """Closed set of machine-readable reasons; used as metric labels, so keep it small."""

    INVALID_CONFIG = "invalid_config"
    MISSING_REQUIRED_FIELD = "missing_required_field"
    INVALID_TYPE = "invalid_type"
    IMMUTABLE_FIELD_CHANGED = "immutable_field_changed"
    INVALID_NAME = "invalid_name"
    MALFORMED_OBJECT = "malformed_object"


@dataclass(frozen=True, slots=True)
class FieldIssue:
    path: str
    message: str
    reason: IssueReason = IssueReason.INVALID_CONFIG

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(frozen=True, slots=True)
class ValidationResult:
    errors: tuple[FieldIssue, ...] = ()
    warnings: tuple[FieldIssue, ...] = ()

    @property
    def allowed(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        """All errors on one line, in a stable order, for admission denials and conditions."""
        return "; ".join(str(issue) for issue in self.errors)
