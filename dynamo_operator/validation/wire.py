"""Tolerant reads of raw wire dicts, for rules that must not depend on the object parsing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api.shared_spec import nodes_per_replica
from dynamo_operator.field_paths import describe


def differs(before: object, after: object) -> bool:
    """Whether an immutable field changed. Its values are scalars; anything else (only a broken
    or hostile object has one) is compared by kind, never element by element, which would recurse
    as deep as the value nests."""
    if _is_scalar(before) and _is_scalar(after):
        return before != after
    return describe(before) != describe(after)


def _is_scalar(value: object) -> bool:
    return value is None or isinstance(value, str | bool | int | float)


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def node_count_of(service: object) -> int:
    """Nodes per replica as the operator reads it: no ``multinode`` block means one node."""
    if not isinstance(service, Mapping):
        return 1
    return nodes_per_replica(service.get("multinode"))
