"""Checks of free-form Kubernetes JSON by shape: the vocabulary of ``pod_spec``'s rules.

A check is a function ``(value, path, issues)`` that reports what is wrong with ``value`` at
``path``; checks compose (``list_of(fields(name=string))``). Objects are checked on the fields a
rule names and left open otherwise: Kubernetes keeps adding fields, and what is not known here
is not refused here.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from dynamo_operator.api import INT32_MAX
from dynamo_operator.field_paths import join_path
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.quantities import parse_quantity
from dynamo_operator.validation.result import IssueReason

Check = Callable[[Any, str, IssueCollector], None]


def _wrong_type(issues: IssueCollector, path: str, expected: str, value: Any) -> None:
    issues.error(path, f"must be {expected}{_shown(value)}", IssueReason.INVALID_TYPE)


def _shown(value: Any) -> str:
    if isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) <= 40):
        return f" (got {value!r})"
    return f" (got {_json_type(value)})"


def _json_type(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a string" if isinstance(value, str) else type(value).__name__


def anything(value: Any, path: str, issues: IssueCollector) -> None:
    """Any JSON value; used for fields whose content Kubernetes checks in depth."""


def string(value: Any, path: str, issues: IssueCollector) -> None:
    if not isinstance(value, str):
        _wrong_type(issues, path, "a string", value)


def boolean(value: Any, path: str, issues: IssueCollector) -> None:
    if not isinstance(value, bool):
        _wrong_type(issues, path, "true or false", value)


def integer(minimum: int = 0, maximum: int = INT32_MAX) -> Check:
    def check(value: Any, path: str, issues: IssueCollector) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            _wrong_type(issues, path, "an integer", value)
        elif not minimum <= value <= maximum:
            issues.error(path, f"must be between {minimum} and {maximum} (got {value})")

    return check


def port_or_name(value: Any, path: str, issues: IssueCollector) -> None:
    """A container port number or the name of one (IntOrString)."""
    if isinstance(value, str):
        if not value:
            issues.error(path, "must be a port number or a port name, not empty")
        return
    integer(1, 65535)(value, path, issues)


def any_object(value: Any, path: str, issues: IssueCollector) -> None:
    if not isinstance(value, dict):
        _wrong_type(issues, path, "an object", value)


def list_of(item: Check) -> Check:
    def check(value: Any, path: str, issues: IssueCollector) -> None:
        if not isinstance(value, list):
            _wrong_type(issues, path, "a list", value)
            return
        for index, entry in enumerate(value):
            item(entry, join_path(path, index), issues)

    return check


def map_of(item: Check) -> Check:
    def check(value: Any, path: str, issues: IssueCollector) -> None:
        if not isinstance(value, dict):
            _wrong_type(issues, path, "an object", value)
            return
        for key, entry in value.items():
            item(entry, join_path(path, str(key)), issues)

    return check


def fields(*required: str, **checks: Check) -> Check:
    """An object whose ``required`` fields must be set and whose ``checks`` fields, when set,
    are checked: ``fields("name", name=string, value=string)``."""

    def check(value: Any, path: str, issues: IssueCollector) -> None:
        if not isinstance(value, dict):
            _wrong_type(issues, path, "an object", value)
            return
        for name in required:
            if value.get(name) in (None, ""):
                issues.error(
                    join_path(path, name),
                    "required field is missing",
                    IssueReason.MISSING_REQUIRED_FIELD,
                )
        for name, field_value in value.items():
            field_check = checks.get(name)
            if field_check is not None and not (name in required and field_value in (None, "")):
                field_check(field_value, join_path(path, name), issues)

    return check


def quantity(minimum: Decimal | None = Decimal(0), *, whole: bool = False) -> Check:
    """A Kubernetes quantity (integer or string) at least ``minimum`` (when given); ``whole``
    requires an integer amount, as extended resources such as ``nvidia.com/gpu`` do."""

    def check(value: Any, path: str, issues: IssueCollector) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            _wrong_type(issues, path, "a quantity such as 2, 500m or 8Gi", value)
            return
        amount = parse_quantity(str(value))
        if amount is None:
            issues.error(path, f"must be a quantity such as 2, 500m or 8Gi{_shown(value)}")
        elif minimum is not None and amount < minimum:
            relation = "greater than or equal to" if minimum == 0 else "at least"
            issues.error(path, f"must be {relation} {minimum}{_shown(value)}")
        elif whole and amount != amount.to_integral_value():
            issues.error(path, f"must be a whole number{_shown(value)}")

    return check


def positive_quantity(value: Any, path: str, issues: IssueCollector) -> None:
    """A quantity strictly greater than zero (a claim's requested storage)."""
    amount = parse_quantity(str(value)) if isinstance(value, int | float | str) else None
    if amount is None:
        quantity()(value, path, issues)
    elif amount <= 0:
        issues.error(path, f"must be greater than zero{_shown(value)}")
