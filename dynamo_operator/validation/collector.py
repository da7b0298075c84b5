"""Accumulates errors and warnings while the rules of one object run, then freezes them."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from dynamo_operator.validation.result import FieldIssue, IssueReason, ValidationResult


class IssueCollector:
    def __init__(self) -> None:
        self._errors: list[FieldIssue] = []
        self._warnings: list[FieldIssue] = []

    def error(
        self, path: str, message: str, reason: IssueReason = IssueReason.INVALID_CONFIG
    ) -> None:
        self._errors.append(FieldIssue(path, message, reason))

    def warn(
        self, path: str, message: str, reason: IssueReason = IssueReason.INVALID_CONFIG
    ) -> None:
        self._warnings.append(FieldIssue(path, message, reason))

    def add_errors(self, issues: Iterable[FieldIssue]) -> None:
        self._errors.extend(issues)

    def add_warnings(self, issues: Iterable[FieldIssue]) -> None:
        self._warnings.extend(issues)

    @property
    def has_errors(self) -> bool:
        return bool(self._errors)

    @property
    def error_count(self) -> int:
        return len(self._errors)

    def result(self, parsed: BaseModel | None = None) -> ValidationResult:
        return ValidationResult(
            errors=tuple(self._errors), warnings=tuple(self._warnings), parsed=parsed
        )
