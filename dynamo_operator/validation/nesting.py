"""A bound on how deeply an object nests, checked before anything walks it.

Free-form fields (probes, ``extraPodSpec``, ``mainContainer``) take any JSON, so an object may nest
a thousand levels in 4 KB. Every later walk (unknown fields, merges, copies, serialisation) is
recursive, and a ``RecursionError`` deep inside admission or ``render`` is both a crash and a
denial of service. Real Kubernetes objects nest a dozen levels deep, so a limit of 100 costs no
one anything; this check is iterative and answers with the path where the limit is crossed.
"""

from __future__ import annotations

from typing import Any

from dynamo_operator.field_paths import MAX_NESTING_DEPTH, PathPart, join_path

_SHOWN_PARTS = 8
_SHOWN_PART_LENGTH = 40


def find_excessive_nesting(value: Any, limit: int = MAX_NESTING_DEPTH) -> str | None:
    """The path (shortened) of the first object or list at a level beyond ``limit``, or None."""
    if not isinstance(value, dict | list):
        return None
    pending: list[tuple[Any, tuple[PathPart, ...]]] = [(value, ())]
    while pending:
        current, parts = pending.pop()
        if len(parts) >= limit:
            return _shortened(parts)
        items = current.items() if isinstance(current, dict) else enumerate(current)
        for key, item in items:
            if isinstance(item, dict | list):
                pending.append((item, (*parts, key if isinstance(key, int) else str(key))))
    return None


def nesting_message(path: str, limit: int = MAX_NESTING_DEPTH) -> str:
    return f"nesting deeper than {limit} levels at {path}"


def _shortened(parts: tuple[PathPart, ...]) -> str:
    shown = [
        part if isinstance(part, int) or len(part) <= _SHOWN_PART_LENGTH else part[:37] + "..."
        for part in parts[:_SHOWN_PARTS]
    ]
    path = join_path("", *shown) or "<root>"
    hidden = len(parts) - len(shown)
    return f"{path}... ({hidden} more levels)" if hidden else path
