"""Make an owner's children exactly the desired ones: apply what differs, delete what is left over.

The reconcilers' `apply` step. Desired children are compared with the cached live objects and
applied only when they differ (`Client.apply_if_changed`); a cached child controlled by the owner
(ownerReference with `controller: true` and the owner's uid) that is not desired any more is
deleted. Kinds whose informer has not synced (an optional API the cluster does not serve) are
skipped for deletion: nothing of them can exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from manager.cache import CacheReader
from manager.client import Client
from manager.kinds import ResourceKind

__all__ = ["ChildChanges", "is_controlled_by", "sync_children"]


@dataclass
class ChildChanges:
    """What one sync wrote, as `Kind/name` strings in the order written."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.created or self.updated or self.deleted)


def is_controlled_by(obj: Mapping[str, Any], owner_uid: str) -> bool:
    return any(
        ref.get("uid") == owner_uid and ref.get("controller") is True
        for ref in (obj.get("metadata") or {}).get("ownerReferences") or ()
    )


async def sync_children(
    client: Client,
    reader: CacheReader,
    owner: Mapping[str, Any],
    desired: Sequence[Mapping[str, Any]],
    child_kinds: Iterable[ResourceKind],
) -> ChildChanges:
    """Apply `desired` (children of `owner`, in its namespace) and delete controlled children
    of `child_kinds` that are not among them."""
    metadata = owner["metadata"]
    namespace, owner_uid = metadata.get("namespace"), metadata["uid"]
    changes = ChildChanges()
    wanted: set[tuple[str, str]] = set()
    for obj in desired:
        kind = client.kind_of(obj)
        name = obj["metadata"]["name"]
        wanted.add((kind.kind, name))
        live = reader.get(kind, namespace, name) if reader.has_synced(kind) else None
        if await client.apply_if_changed(obj, live):
            (changes.created if live is None else changes.updated).append(f"{kind.kind}/{name}")
    for kind in child_kinds:
        if not reader.has_synced(kind):
            continue
        for child in reader.list(kind, namespace, owner_uid=owner_uid):
            name = child["metadata"]["name"]
            if (kind.kind, name) in wanted or not is_controlled_by(child, owner_uid):
                continue
            if await client.delete(kind, namespace, name):
                changes.deleted.append(f"{kind.kind}/{name}")
    return changes
