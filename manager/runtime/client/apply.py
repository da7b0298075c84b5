"""Compare-before-apply: is a server-side apply of `desired` going to change `live`?

Server-side apply is the intent of one field manager, so `live` only has to agree with `desired`
on the fields `desired` sets; everything else in `live` (server defaults, status, other managers'
fields, metadata the server owns) is ignored. Rules, chosen so that a converged object compares
equal and the operator writes nothing at steady state:

- maps: every key of `desired` must match in `live`; extra keys in `live` are fine; a missing map
  or list in `live` equals an empty one (the API server drops empty collections);
- lists: same length, and each element of `desired` matches the element at the same position
  (lists of maps merged by key keep the order they were applied in);
- `None` in `desired` means the field must be absent from `live`;
- scalars: equal values of the same JSON type (`True` is not `1`); two resource quantities that
  the API server would canonicalise differently ("1000m" and "1", "0.5Gi" and "512Mi") are equal.

A compare that only looks at what `desired` sets cannot see a field the controller *stopped*
setting (a label, a probe, a resource limit): skipping that apply would leave the stale field in
place for ever. `with_applied_digest` therefore stamps `desired` with a digest of itself; any
change to `desired`, removals included, changes the digest and so forces the apply. The
annotation's name is the caller's (`Identity.applied_digest_annotation`).

Status is different: the operator owns all of it, and the API server drops metadata sent to the
`/status` subresource (annotations, and `uid` too: it guards nothing there), so a digest could
never be read back. `find_status_difference` compares the whole status both ways (a key only
the live status has is a difference too), with the same scalar rules and "an empty collection
equals an absent one". `status_cleanup_patch` is the JSON merge patch of the removals alone and
`status_merge_patch` the whole way from live to desired (RFC 7386: `null` removes a key, a list
is replaced whole).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, TypeGuard

import orjson

__all__ = [
    "find_difference",
    "find_status_difference",
    "needs_apply",
    "prune_none",
    "status_cleanup_patch",
    "status_merge_patch",
    "with_applied_digest",
]

_MISSING: Any = object()

_QUANTITY = re.compile(
    r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$"
)
_SUFFIX = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def with_applied_digest(desired: Mapping[str, Any], annotation: str) -> dict[str, Any]:
    """A shallow copy of `desired` whose `metadata.annotations[annotation]` is its digest."""
    digest = hashlib.sha256(orjson.dumps(desired, option=orjson.OPT_SORT_KEYS)).hexdigest()[:24]
    metadata = dict(desired.get("metadata") or {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), annotation: digest}
    return {**desired, "metadata": metadata}


def needs_apply(desired: Mapping[str, Any], live: Mapping[str, Any] | None) -> bool:
    """True when applying `desired` could change `live` (or `live` does not exist)."""
    return live is None or find_difference(desired, live) is not None


def find_difference(desired: Any, live: Any, path: str = "") -> str | None:
    """The dotted path of the first field where `live` disagrees with `desired`, or None."""
    if desired is None:
        return None if live is _MISSING or live is None else path or "."
    if _is_map(desired):
        return _map_difference(desired, live, path)
    if _is_list(desired):
        return _list_difference(desired, live, path)
    return None if _scalars_equal(desired, live) else path or "."


def _map_difference(desired: Mapping[str, Any], live: Any, path: str) -> str | None:
    if live is _MISSING or live is None:
        live = {}
    if not _is_map(live):
        return path or "."
    for key, value in desired.items():
        found = find_difference(value, live.get(key, _MISSING), f"{path}.{key}" if path else key)
        if found is not None:
            return found
    return None


def _list_difference(desired: Sequence[Any], live: Any, path: str) -> str | None:
    if live is _MISSING or live is None:
        live = []
    if not _is_list(live):
        return path or "."
    if len(desired) != len(live):
        return path or "."
    for index, (want, have) in enumerate(zip(desired, live, strict=True)):
        found = find_difference(want, have, f"{path}[{index}]")
        if found is not None:
            return found
    return None


def find_status_difference(desired: Any, live: Any, path: str = "") -> str | None:
    """The dotted path of the first field where `live` and `desired` differ, in either
    direction, or None. `None`, `{}` and `[]` all equal an absent field."""
    here = path or "."
    if _is_empty(desired) and _is_empty(live):
        return None
    if _is_map(desired) or _is_map(live):
        want = {} if _is_empty(desired) else desired
        have = {} if _is_empty(live) else live
        if not (_is_map(want) and _is_map(have)):
            return here
        for key in {**want, **have}:
            found = find_status_difference(
                want.get(key), have.get(key), f"{path}.{key}" if path else key
            )
            if found is not None:
                return found
        return None
    if _is_list(desired) or _is_list(live):
        want_items = [] if _is_empty(desired) else desired
        have_items = [] if _is_empty(live) else live
        if not (_is_list(want_items) and _is_list(have_items)):
            return here
        if len(want_items) != len(have_items):
            return here
        for index, (want_item, have_item) in enumerate(zip(want_items, have_items, strict=True)):
            found = find_status_difference(want_item, have_item, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if _is_empty(desired) or _is_empty(live):
        return here
    return None if _scalars_equal(desired, live) else here


def status_cleanup_patch(desired: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON merge patch that removes from `live` what `desired` lacks: `null` for each extra
    key (recursively) and the desired list for each list that differs. Fields `desired` sets
    and `live` lacks are not in it: after a write that set them, a field still missing was
    dropped by the server (not in the schema), which sending it again cannot fix."""
    patch: dict[str, Any] = {}
    for key, have in live.items():
        want = desired.get(key)
        if _is_empty(want):
            if not _is_empty(have):
                patch[key] = None
        elif _is_map(want) and _is_map(have):
            if nested := status_cleanup_patch(want, have):
                patch[key] = nested
        elif _is_list(want) and find_status_difference(want, have) is not None:
            patch[key] = prune_none(want)
    return patch


def status_merge_patch(desired: Mapping[str, Any], live: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON merge patch that turns `live` into `desired`: `null` for each key `desired`
    lacks, the desired value for each one that differs (maps recursively, lists whole)."""
    patch: dict[str, Any] = {
        key: None
        for key, have in live.items()
        if _is_empty(desired.get(key)) and not _is_empty(have)
    }
    for key, want in desired.items():
        have = live.get(key)
        if _is_empty(want):
            continue
        if _is_map(want) and _is_map(have):
            if nested := status_merge_patch(want, have):
                patch[key] = nested
        elif find_status_difference(want, have) is not None:
            patch[key] = prune_none(want)
    return patch


def prune_none(value: Any) -> Any:
    """`value` without the `None` map entries ("absent" in desired objects), at any depth."""
    if _is_map(value):
        return {k: prune_none(v) for k, v in value.items() if v is not None}
    if _is_list(value):
        return [prune_none(v) for v in value]
    return value


def _is_empty(value: Any) -> bool:
    if value is None or value is _MISSING:
        return True
    return (_is_map(value) or isinstance(value, list)) and not value


# The exact-type checks first: objects are JSON (dicts, lists, strings, numbers), and an ABC's
# isinstance is slow enough to be 2% of the operator's CPU at 500 graphs when asked first.


def _is_map(value: Any) -> TypeGuard[Mapping[str, Any]]:
    kind = type(value)
    return kind is dict or (
        kind not in _SCALARS and kind is not list and isinstance(value, Mapping)
    )


def _is_list(value: Any) -> TypeGuard[Sequence[Any]]:
    kind = type(value)
    return kind is list or (
        kind not in _SCALARS
        and kind is not dict
        and isinstance(value, Sequence)
        and not isinstance(value, str | bytes)
    )


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _scalars_equal(desired: Any, live: Any) -> bool:
    if live is _MISSING:
        return False
    if isinstance(desired, bool) or isinstance(live, bool):
        return type(desired) is type(live) and desired == live
    if desired == live:
        return True
    if isinstance(desired, str) and isinstance(live, str):
        return _quantities_equal(desired, live)
    return False


def _quantities_equal(a: str, b: str) -> bool:
    first, second = _parse_quantity(a), _parse_quantity(b)
    return first is not None and first == second


def _parse_quantity(text: str) -> Decimal | None:
    match = _QUANTITY.match(text)
    if match is None:
        return None
    number, suffix = match.group(1), match.group(2) or ""
    try:
        if suffix[:1] in ("e", "E"):
            return Decimal(number + suffix)
        return Decimal(number) * _SUFFIX[suffix]
    except InvalidOperation:
        return None
