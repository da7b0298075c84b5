"""Tolerant reads of raw wire dicts, for rules that must not depend on the object parsing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api.shared_spec import nodes_per_replica


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def node_count_of(service: object) -> int:
    """Nodes per replica as the operator reads it: no ``multinode`` block means one node."""
    if not isinstance(service, Mapping):
        return 1
    return nodes_per_replica(service.get("multinode"))
