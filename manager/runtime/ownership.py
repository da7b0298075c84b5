"""Make an owner's children exactly the desired ones: apply what differs, delete what is left over.

The reconcilers' `apply` step. Desired children are compared with the cached live objects and
applied only when they differ (the rules of `Client.apply_if_changed`: stamped with the applied
digest, compared on the fields they set); a cached child controlled by the owner (ownerReference
with `controller: true` and the owner's uid) that is not desired any more is deleted. Kinds whose
informer has not synced (an optional API the cluster does not serve) are skipped for deletion:
nothing of them can exist. The applies run side by side (each is a round trip, and a component's
Deployment and Service do not depend on each other); a refused one is raised once all have ended.

The cache lags the writes: right after a child is applied, the cached copy still shows the child
as it was, with a status that describes the old spec (a Deployment fully rolled out at its old
generation). Reading readiness from it would report a change as finished before its rollout has
even started. So the server's answer to each write is kept (`ChildChanges.written`) and
`ChildChanges.freshest` prefers it to a cached copy older than it: its `metadata.generation`
says whether the write changed the spec, its status what the child's controller had observed.

A namespace being deleted refuses new objects (403, cause `NamespaceTerminating`; 404 once it is
gone). Its owners are going away with it, so there is nothing to make: the sync stops and says so
(`ChildChanges.namespace_terminating`) instead of failing, which would retry the reconcile with
backoff and log an error for every owner until the cache saw it deleted.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from manager.runtime.cache import CacheReader
from manager.runtime.client import (
    ApiError,
    Client,
    Forbidden,
    NotFound,
)
from manager.runtime.events import EventRecorder
from manager.runtime.kinds import ResourceKind
from manager.runtime.logging import get_logger
from manager.runtime.side_by_side import side_by_side

__all__ = [
    "ChildChanges",
    "apply_children",
    "apply_each",
    "is_controlled_by",
    "is_namespace_terminating",
    "is_owned_by",
    "sync_children",
]

log = get_logger(__name__)

APPLY_CONCURRENCY = 8
"""Children of one owner applied at once (a multinode component may have hundreds)."""


@dataclass
class ChildChanges:
    """What one sync wrote, as `Kind/name` strings in the order written."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    written: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    """The API server's answer to each apply, by (kind, name)."""
    applied: list[tuple[str, str]] = field(default_factory=list)
    """(kind, name) of every child the sync wanted, written or already as wanted."""
    namespace_terminating: bool = False
    """A child could not be created because the namespace is being deleted (or is gone): the
    sync stopped there; the owner goes with the namespace."""

    def __bool__(self) -> bool:
        return bool(self.created or self.updated or self.deleted)

    def announce(self, recorder: EventRecorder, owner: Mapping[str, Any]) -> None:
        """One Normal Event on `owner` per kind of write, naming the children written.

        Creations and updates that carry out a spec the owner has not reported on yet
        (`status.observedGeneration` is not its generation) are what its user just asked for,
        and its status says how that goes: they are not announced, or every new object would
        get an Event per child. Announced are the creations and updates made once the owner
        has reported its generation (repairs of children someone else changed or deleted),
        and every deletion."""
        observed = (owner.get("status") or {}).get("observedGeneration")
        repairing = observed is not None and observed == owner["metadata"].get("generation")
        for reason, names in (
            ("Created", self.created if repairing else ()),
            ("Updated", self.updated if repairing else ()),
            ("Deleted", self.deleted),
        ):
            if names:
                recorder.event(owner, "Normal", reason, f"{reason} {', '.join(names)}")

    def freshest(
        self, kind: str, name: str, cached: Mapping[str, Any] | None
    ) -> Mapping[str, Any] | None:
        """The newer of the cached child and the one this sync wrote (the written one when
        their resourceVersions do not compare as numbers: it cannot be older than the read)."""
        written = self.written.get((kind, name))
        if written is None:
            return cached
        if cached is None:
            return written
        cached_version = _version(cached)
        written_version = _version(written)
        if cached_version is not None and written_version is not None:
            return cached if cached_version > written_version else written
        return written


def is_owned_by(obj: Mapping[str, Any], owner_uid: str) -> bool:
    return any(
        ref.get("uid") == owner_uid
        for ref in (obj.get("metadata") or {}).get("ownerReferences") or ()
    )


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
    changes = await apply_children(client, reader, owner, desired)
    if changes.namespace_terminating:
        return changes
    metadata = owner["metadata"]
    namespace, owner_uid = metadata.get("namespace"), metadata["uid"]
    wanted = set(changes.applied)
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


async def apply_children(
    client: Client,
    reader: CacheReader,
    owner: Mapping[str, Any],
    desired: Sequence[Mapping[str, Any]],
) -> ChildChanges:
    """Apply `desired` (children of `owner`, in its namespace) that differ from the cache,
    deleting nothing: `sync_children`'s first half, for a pass that writes some children now
    and leaves the rest for later."""
    changes = ChildChanges()
    applied = await _apply_all(client, reader, owner["metadata"].get("namespace"), desired)
    errors = [result.error for result in applied if result.error is not None]
    if any(isinstance(e, ApiError) and is_namespace_terminating(e) for e in errors):
        changes.namespace_terminating = True
        return changes
    if errors:
        raise errors[0]
    for result in applied:
        changes.applied.append((result.kind.kind, result.name))
        if result.written is not None:
            changes.written[(result.kind.kind, result.name)] = result.written
            created = result.live is None
            (changes.created if created else changes.updated).append(result.key)
    return changes


async def apply_each(
    client: Client, reader: CacheReader, objects: Iterable[Mapping[str, Any]]
) -> list[str]:
    """Apply each object that differs from its cached copy, one after another (objects shared
    by several owners, which `sync_children` must not delete): `Kind/name` of those created."""
    created = []
    for obj in objects:
        kind = client.kind_of(obj)
        metadata = obj["metadata"]
        live = reader.get(kind, metadata.get("namespace"), metadata["name"])
        if await client.apply_if_changed(obj, live) and live is None:
            created.append(f"{kind.kind}/{metadata['name']}")
    return created


@dataclass
class _Applied:
    kind: ResourceKind
    name: str
    live: Mapping[str, Any] | None
    written: dict[str, Any] | None = None
    error: Exception | None = None

    @property
    def key(self) -> str:
        return f"{self.kind.kind}/{self.name}"


async def _apply_all(
    client: Client, reader: CacheReader, namespace: str | None, desired: Sequence[Mapping[str, Any]]
) -> list[_Applied]:
    """Apply the children that differ from the cache side by side (a Deployment and its Service
    are independent writes, each a round trip): every outcome, in `desired` order."""
    applied: list[_Applied] = []
    writes = []

    async def apply(obj: Mapping[str, Any], child: _Applied) -> None:
        try:
            child.written = await client.apply_if_changed(obj, child.live)
        except Exception as error:  # reported in order once every apply has ended
            child.error = error

    for obj in desired:
        kind = client.kind_of(obj)
        name = obj["metadata"]["name"]
        live = reader.get(kind, namespace, name) if reader.has_synced(kind) else None
        applied.append(child := _Applied(kind, name, live))
        if client.needs_apply(obj, live):
            writes.append(functools.partial(apply, obj, child))
    await side_by_side(writes, limit=APPLY_CONCURRENCY)
    return applied


def is_namespace_terminating(error: ApiError) -> bool:
    """The API server refused a write because the namespace is being deleted (403 with the
    `NamespaceTerminating` cause) or no longer exists (404 naming the namespace itself)."""
    details = error.status.get("details") or {}
    if isinstance(error, NotFound):
        return details.get("kind") == "namespaces"
    causes = details.get("causes") or ()
    return isinstance(error, Forbidden) and any(
        cause.get("reason") == "NamespaceTerminating" for cause in causes
    )


def _version(obj: Mapping[str, Any]) -> int | None:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or "")
    except ValueError:
        return None
