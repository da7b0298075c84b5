"""Objects of a kind with a `WireFormat`, on their way to and from the API server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from manager.runtime.kinds import ResourceKind

__all__ = ["decoded", "decoded_items", "encoded"]


def encoded(kind: ResourceKind, obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """`obj` at the wire version; an object already there goes as it is."""
    if kind.wire is None or obj.get("apiVersion") != kind.api_version:
        return obj
    return kind.wire.encode(obj)


def decoded(kind: ResourceKind, obj: dict[str, Any]) -> dict[str, Any]:
    if kind.wire is None or obj.get("apiVersion") != kind.wire.api_version:
        return obj
    return kind.wire.decode(obj)


def decoded_items(kind: ResourceKind, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A list's items, which carry no apiVersion (what decoding goes by)."""
    if kind.wire is None:
        return items
    wire = {"apiVersion": kind.wire.api_version, "kind": kind.kind}
    return [decoded(kind, {**wire, **item}) for item in items]
