"""Tolerant reads of raw wire dicts, for rules that must not depend on the object parsing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api.constants import DEFAULT_MULTINODE_NODE_COUNT


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def node_count_of(service: object) -> int:
    """Nodes per replica as the operator reads it: no ``multinode`` block means one node."""
    if not isinstance(service, Mapping):
        return 1
    multinode = service.get("multinode")
    if not isinstance(multinode, Mapping):
        return 1
    count = multinode.get("nodeCount", DEFAULT_MULTINODE_NODE_COUNT)
    return count if isinstance(count, int) else DEFAULT_MULTINODE_NODE_COUNT
