"""Reading an object's status conditions: the one place the harness asks "is it True?".

Kubernetes objects (Nodes, Pods, CRDs, Jobs, the operator's own kinds) report their state as
``status.conditions``, a list of ``{type, status: "True"|"False"|"Unknown", reason, message}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["condition", "is_condition_true"]


def condition(obj: Mapping[str, Any] | None, condition_type: str) -> dict[str, Any]:
    """The condition of that type ({} when the object has none)."""
    for entry in ((obj or {}).get("status") or {}).get("conditions") or ():
        if entry.get("type") == condition_type:
            return dict(entry)
    return {}


def is_condition_true(obj: Mapping[str, Any] | None, condition_type: str) -> bool:
    return condition(obj, condition_type).get("status") == "True"
