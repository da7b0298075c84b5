"""The outcome of validating one object: errors that block it, warnings that do not.

Every issue names the field path (dotted, as a user writes it in YAML, e.g.
``spec.services.VllmWorker.multinode.nodeCount``) and a human reason, plus a short machine reason
that webhooks turn into metric labels and reconcilers into condition reasons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)


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
    parsed: BaseModel | None = field(default=None, compare=False, repr=False)
    """The object as its pydantic model, when it parsed: what a reconciler builds from, so the
    object is parsed once per pass."""

    @property
    def allowed(self) -> bool:
        return not self.errors

    def model(self, kind: type[Model]) -> Model:
        """The parsed object as `kind`; `TypeError` if it did not parse as one (validate it and
        check `allowed` first)."""
        if not isinstance(self.parsed, kind):
            raise TypeError(f"the validated object is not a parsed {kind.__name__}")
        return self.parsed

    def summary(self) -> str:
        """All errors on one line, in a stable order, for admission denials and conditions."""
        return "; ".join(str(issue) for issue in self.errors)
