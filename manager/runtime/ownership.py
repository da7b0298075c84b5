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

import anyio

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
    "SharedObjects",
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


class SharedObjects:
    """Objects several owners share, or that several reconciles apply (a graph's discovery
    account, applied by each of its components), applied with every owner among their owner
    references, so the garbage collector removes each with the last of its owners, and the
    reference of each owner deleted before.

    The object is applied when it is missing or differs (its digest leaves the owners out);
    an owner it lacks is added alone, with a strategic merge patch that keeps every other
    reference, so owners added side by side from a cache that lags never remove each other.
    One owner's components are applied side by side too: calls for one object take turns,
    and each compares with the newer of the cache and the last answer, so an owner already
    added is not added again while the cache catches up.

    An object with one owner that several reconciles apply (a graph's discovery Role, applied by
    each of its components) takes the same turns with no owner to add (`apply(obj, None)`,
    `apply_all`): it is written once, with exactly the owner references it is built with.
    """

    def __init__(self, client: Client, reader: CacheReader) -> None:
        self._client = client
        self._reader = reader
        self._turns: dict[tuple[str, str | None, str], anyio.Lock] = {}
        self._written: dict[tuple[str, str | None, str], tuple[ResourceKind, Mapping[str, Any]]]
        self._written = {}
        """The server's last answer per object, until the cache is up to date with it."""

    async def apply(
        self, desired: Mapping[str, Any], owner: Mapping[str, Any] | None
    ) -> tuple[Mapping[str, Any], bool]:
        """Apply `desired` with `owner` (an object's apiVersion, kind, name, uid) among its
        owners: the object as it is now, and whether this call created it. `owner` None: with
        exactly the owner references `desired` has (an object of one owner that several
        reconciles apply: a recreated owner's reference replaces the old one's)."""
        if (settled := self._settled(desired, owner)) is not None:
            return settled, False
        kind = self._client.kind_of(desired)
        key = _key(kind, desired)
        turn = self._turns.setdefault(key, anyio.Lock())
        try:
            async with turn:
                return await self._apply(kind, key, desired, owner)
        finally:
            idle = not turn.locked() and not turn.statistics().tasks_waiting
            if idle and self._turns.get(key) is turn:
                del self._turns[key]  # namespaces come and go: keep only turns in use

    def _settled(
        self, desired: Mapping[str, Any], owner: Mapping[str, Any] | None
    ) -> Mapping[str, Any] | None:
        """The object when it already is `desired` with `owner` and nobody is applying it: what
        most calls find, answered without taking a turn."""
        kind = self._client.kind_of(desired)
        key = _key(kind, desired)
        if key in self._turns:
            return None
        live = self._live(kind, key)
        if live is None:
            return None
        if owner is not None:
            if not is_owned_by(live, owner["uid"]):
                return None
            desired = {**desired, "metadata": _without_owners(desired["metadata"])}
        return None if self._client.needs_apply(desired, live) else live

    async def _apply(
        self,
        kind: ResourceKind,
        key: tuple[str, str | None, str],
        desired: Mapping[str, Any],
        owner: Mapping[str, Any] | None,
    ) -> tuple[Mapping[str, Any], bool]:
        live = self._live(kind, key)
        written = (
            await self._client.apply_if_changed(desired, live)
            if owner is None
            else await self._apply_with_owner(desired, live, owner)
        )
        if written is None:
            assert live is not None  # nothing written: the live object had everything
            return live, False
        self._written[key] = (kind, written)
        return written, live is None

    async def apply_all(self, objects: Sequence[Mapping[str, Any]]) -> list[str]:
        """`apply(obj, None)` for each object, side by side (independent writes, a round trip
        each): `Kind/name` of those created. Every apply ends before the first error is raised,
        as one call alone would raise it."""
        created: list[str] = []
        errors: list[Exception] = []

        async def apply(obj: Mapping[str, Any]) -> None:
            try:
                _, made = await self.apply(obj, None)
            except Exception as error:
                errors.append(error)
                return
            if made:
                created.append(f"{obj['kind']}/{obj['metadata']['name']}")

        unsettled = [
            functools.partial(apply, obj) for obj in objects if self._settled(obj, None) is None
        ]
        await side_by_side(unsettled, limit=APPLY_CONCURRENCY)
        if errors:
            raise errors[0]
        return sorted(created)

    async def _apply_with_owner(
        self, desired: Mapping[str, Any], live: Mapping[str, Any] | None, owner: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        reference = {field: owner[field] for field in ("apiVersion", "kind", "name", "uid")}
        owners = list(((live or {}).get("metadata") or {}).get("ownerReferences") or ())
        missing = live is None or not is_owned_by(live, reference["uid"])
        written = await self._client.apply_if_changed(
            {**desired, "metadata": _without_owners(desired["metadata"])},
            live,
            owners=[*owners, reference] if missing else owners,
        )
        if written is None and live is not None and missing:
            written = await self._client.add_owner(live, reference)
        return written

    def _forget_seen(self) -> None:
        """Drop the answers the cache is up to date with: they are only the in-flight writes."""
        for key, (kind, written) in list(self._written.items()):
            if self._reader.has_seen(kind, _version_text(written)):
                del self._written[key]

    def _live(
        self, kind: ResourceKind, key: tuple[str, str | None, str]
    ) -> Mapping[str, Any] | None:
        """The last answer while the cache is not up to date with it, else the cached object
        (absent: deleted since). No read of the server either way."""
        self._forget_seen()
        entry = self._written.get(key)
        if entry is not None:
            return entry[1]
        _, namespace, name = key
        return self._reader.get(kind, namespace, name) if self._reader.has_synced(kind) else None


def _key(kind: ResourceKind, obj: Mapping[str, Any]) -> tuple[str, str | None, str]:
    metadata = obj["metadata"]
    return kind.kind, metadata.get("namespace"), metadata["name"]


def _without_owners(metadata: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in metadata.items() if key != "ownerReferences"}


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


def _version_text(obj: Mapping[str, Any]) -> str | None:
    version = (obj.get("metadata") or {}).get("resourceVersion")
    return None if version is None else str(version)


def _version(obj: Mapping[str, Any]) -> int | None:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or "")
    except ValueError:
        return None
