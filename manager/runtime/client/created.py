"""Children created with POST, applied ever after.

Creating an object with POST costs the API server less than creating it with a server-side
apply (`python -m bench.write_cost`: about 42 against 52 s of API-server CPU per 1,000
Deployments, 8.7 against 11.2 per 1,000 Services): it decodes JSON instead of YAML and merges
no field sets. But a POST is an `Update` operation: its field manager owns every field of the
new object, the server's defaults included, and an apply can only remove a field no other
manager owns. So the client creates under a manager of its own (`Identity.create_field_manager`)
and, before the first apply that changes the object, makes that manager's entry of
`metadata.managedFields` its apply manager's `Apply` entry (what kubectl does to objects
`kubectl create` made before it applies them server-side). From then on the object is applied
like any other, and a field the controller stops setting is removed.

The patch renames the entry in place, so it needs only the entries' names, which the cache
keeps (`cache.informer.strip_for_cache`), not their field sets: no read, and nothing another
manager wrote meanwhile is overwritten. It `test`s the name at the position it renames, so an
object whose entries moved since the cache read fails it (422, retried by the reconcile).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["adoption_patch"]


def adoption_patch(
    entries: Sequence[Mapping[str, Any]], *, creator: str, applier: str
) -> list[dict[str, Any]] | None:
    """The JSON patch (RFC 6902) that makes `creator`'s `Update` entry of the main resource
    `applier`'s `Apply` entry, or None when `creator` has none.

    An object can have both only when a create found it existing already (the cache had not
    seen it) and the client applied it instead: then the created entry is removed, and the
    fields only it held (the server's defaults, mostly) are left to no manager."""
    created = _position(entries, creator, "Update")
    if created is None:
        return None
    at = f"/metadata/managedFields/{created}"
    ops: list[dict[str, Any]] = [
        {"op": "test", "path": f"{at}/manager", "value": creator},
        {"op": "test", "path": f"{at}/operation", "value": "Update"},
    ]
    if _position(entries, applier, "Apply") is not None:
        return [*ops, {"op": "remove", "path": at}]
    return [
        *ops,
        {"op": "replace", "path": f"{at}/manager", "value": applier},
        {"op": "replace", "path": f"{at}/operation", "value": "Apply"},
    ]


def _position(entries: Sequence[Mapping[str, Any]], manager: str, operation: str) -> int | None:
    for index, entry in enumerate(entries):
        if (
            entry.get("manager") == manager
            and entry.get("operation") == operation
            and not entry.get("subresource")
        ):
            return index
    return None
