"""Checks and helpers on wire objects (JSON as the API server sends it).

Conversion runs on whatever an API server has stored, so before anything walks an object it is
checked iteratively: JSON types only, finite numbers, string keys, and a bounded depth. After that
check the recursive helpers here (copy, type-aware equality, digests) cannot blow the stack.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from dynamo_operator.conversion.errors import ConversionError
from dynamo_operator.field_paths import MAX_NESTING_DEPTH, PathPart, describe, join_path

JsonDict = dict[str, Any]


def check_json(value: Any) -> None:
    """Raise ConversionError naming the first part that is not plain, finite, bounded JSON."""
    pending: list[tuple[Any, tuple[PathPart, ...]]] = [(value, ())]
    while pending:
        current, parts = pending.pop()
        if isinstance(current, dict):
            items: list[tuple[PathPart, Any]] = []
            for key, item in current.items():
                if not isinstance(key, str):
                    raise ConversionError(join_path("", *parts), f"key {describe(key)} is not text")
                items.append((key, item))
        elif isinstance(current, list):
            items = list(enumerate(current))
        else:
            _check_scalar(current, parts)
            continue
        if len(parts) >= MAX_NESTING_DEPTH:
            raise ConversionError(
                join_path("", *parts[:8]), f"nesting deeper than {MAX_NESTING_DEPTH} levels"
            )
        pending.extend((item, (*parts, key)) for key, item in items)


def _check_scalar(value: Any, parts: tuple[PathPart, ...]) -> None:
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float) and math.isfinite(value):
        return
    raise ConversionError(join_path("", *parts), f"{describe(value)} is not a JSON value")


def copy_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def same(left: Any, right: Any) -> bool:
    """Equality as JSON sees it: ``True`` is not ``1`` and ``1`` is not ``1.0``."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)


def dumps(value: Any) -> str:
    """Compact, deterministic JSON."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value: Any) -> str:
    """A short fingerprint of a value, distinguishing the types JSON distinguishes."""
    return hashlib.sha256(dumps(value).encode()).hexdigest()[:16]


def as_dict(value: Any) -> JsonDict | None:
    return value if isinstance(value, dict) else None


def as_list(value: Any) -> list[Any] | None:
    return value if isinstance(value, list) else None
