"""Field paths as users write them (``spec.services.Frontend.envs[0].name``) and the translation
of pydantic's errors into FieldIssues carrying such paths."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from dynamo_operator.field_paths import MAX_SHOWN_TEXT, PathPart, join_path
from dynamo_operator.validation.result import FieldIssue, IssueReason

_MISSING_TYPES = frozenset({"missing"})
_WRONG_SHAPE_TYPES = frozenset({"model_type", "model_attributes_type", "dict_type", "list_type"})


def issues_from_validation_error(error: ValidationError, base: str = "") -> list[FieldIssue]:
    """One FieldIssue per pydantic error, keeping pydantic's (stable, input-ordered) sequence."""
    return [_issue_from_detail(detail, base) for detail in error.errors(include_url=False)]


def _issue_from_detail(detail: ErrorDetails, base: str) -> FieldIssue:
    path = join_path(base, *_wire_location(detail["loc"]))
    kind = detail["type"]
    if kind in _MISSING_TYPES:
        return FieldIssue(path, "required field is missing", IssueReason.MISSING_REQUIRED_FIELD)
    if kind in _WRONG_SHAPE_TYPES:
        expected = "a list" if kind == "list_type" else "an object"
        return FieldIssue(path, f"must be {expected}{_shown(detail)}", IssueReason.INVALID_TYPE)
    message = detail["msg"].removeprefix("Value error, ")
    reason = IssueReason.INVALID_TYPE if _is_type_error(kind) else IssueReason.INVALID_CONFIG
    return FieldIssue(path, f"{message}{_shown(detail)}", reason)


def _wire_location(location: Iterable[PathPart]) -> list[PathPart]:
    # Tagged-union and function-validator steps are not fields; drop them.
    return [part for part in location if not (isinstance(part, str) and "[" in part)]


def _is_type_error(kind: str) -> bool:
    return kind.endswith(("_type", "_parsing")) or kind == "literal_error"


def _shown(detail: ErrorDetails) -> str:
    value = detail.get("input")
    if isinstance(value, bool | int | float) or (
        isinstance(value, str) and len(value) <= MAX_SHOWN_TEXT
    ):
        return f" (got {value!r})"
    return ""
