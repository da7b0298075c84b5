"""Field paths and values as messages show them, shared by validation and conversion.

Both name the field at fault the way users write it (``spec.services.Frontend.envs[0].name``) and
show a value without ever rendering a nested or huge one: it comes from the user, and rendering a
thousand levels of nesting raises RecursionError. Conversion cannot import validation (validation
converts v1beta1 objects), so what they share lives here, below both.
"""

from __future__ import annotations

PathPart = str | int

MAX_NESTING_DEPTH = 100
"""Levels of objects and lists an object may have; real objects nest a dozen."""
MAX_SHOWN_TEXT = 40
"""Longest string a message shows as it is."""


def join_path(base: str, *parts: PathPart) -> str:
    """A field path as users write it: ``spec.services.Frontend.envs[0].name``."""
    path = base
    for part in parts:
        if isinstance(part, int):
            path = f"{path}[{part}]"
        elif path:
            path = f"{path}.{part}"
        else:
            path = part
    return path


def describe(value: object) -> str:
    """A value as a message may show it: a short scalar as Python writes it, anything else by its
    kind."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a very large integer"
    if isinstance(value, str) and len(value) > MAX_SHOWN_TEXT:
        return repr(value[: MAX_SHOWN_TEXT - 3] + "...")
    if value is None or isinstance(value, str | bool | int | float):
        return repr(value)
    if isinstance(value, dict):
        return "an object"
    return "a list" if isinstance(value, list) else f"a {type(value).__name__}"
