"""Objects several owners share, or that several reconciles apply: each applied in turns, with
every owner among its owner references."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from manager.runtime.cache import CacheReader
from manager.runtime.client import Client
from manager.runtime.kinds import ResourceKind
from manager.runtime.ownership import APPLY_CONCURRENCY, is_owned_by
from manager.runtime.side_by_side import side_by_side

__all__ = ["SharedObjects"]

_Key = tuple[str, str | None, str]
"""An object's kind, namespace and name."""


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
    added is not added again while the cache catches up. What most calls find, an object
    already as desired that no call is applying, is answered without taking a turn.

    An object with one owner that several reconciles apply (a graph's discovery Role, applied by
    each of its components) takes the same turns with no owner to add (`apply(obj, None)`,
    `apply_all`): it is written once, with exactly the owner references it is built with.
    """

    def __init__(self, client: Client, reader: CacheReader) -> None:
        self._client = client
        self._reader = reader
        self._turns: dict[_Key, anyio.Lock] = {}
        self._written: dict[_Key, tuple[ResourceKind, Mapping[str, Any]]] = {}
        """The server's last answer per object, until the cache is up to date with it."""

    async def apply(
        self, desired: Mapping[str, Any], owner: Mapping[str, Any] | None
    ) -> tuple[Mapping[str, Any], bool]:
        """Apply `desired` with `owner` (an object's apiVersion, kind, name, uid) among its
        owners: the object as it is now, and whether this call created it. `owner` None: with
        exactly the owner references `desired` has (an object of one owner that several
        reconciles apply: a recreated owner's reference replaces the old one's)."""
        kind = self._client.kind_of(desired)
        key = _key(kind, desired)
        if (settled := self._settled(kind, key, desired, owner)) is not None:
            return settled, False
        return await self._apply_in_turn(kind, key, desired, owner)

    async def _apply_in_turn(
        self,
        kind: ResourceKind,
        key: _Key,
        desired: Mapping[str, Any],
        owner: Mapping[str, Any] | None,
    ) -> tuple[Mapping[str, Any], bool]:
        turn = self._turns.setdefault(key, anyio.Lock())
        try:
            async with turn:
                return await self._apply(kind, key, desired, owner)
        finally:
            idle = not turn.locked() and not turn.statistics().tasks_waiting
            if idle and self._turns.get(key) is turn:
                del self._turns[key]  # namespaces come and go: keep only turns in use

    def _settled(
        self,
        kind: ResourceKind,
        key: _Key,
        desired: Mapping[str, Any],
        owner: Mapping[str, Any] | None,
    ) -> Mapping[str, Any] | None:
        """The object when it already is `desired` with `owner` and nobody is applying it: what
        most calls find, answered without taking a turn."""
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
        key: _Key,
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

        async def apply(kind: ResourceKind, key: _Key, obj: Mapping[str, Any]) -> None:
            try:
                _, made = await self._apply_in_turn(kind, key, obj, None)
            except Exception as error:
                errors.append(error)
                return
            if made:
                created.append(f"{obj['kind']}/{obj['metadata']['name']}")

        unsettled = []
        for obj in objects:
            kind = self._client.kind_of(obj)
            key = _key(kind, obj)
            if self._settled(kind, key, obj, None) is None:
                unsettled.append(functools.partial(apply, kind, key, obj))
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

    def _live(self, kind: ResourceKind, key: _Key) -> Mapping[str, Any] | None:
        """The last answer while the cache is not up to date with it, else the cached object
        (absent: deleted since). No read of the server either way."""
        self._forget_seen()
        entry = self._written.get(key)
        if entry is not None:
            return entry[1]
        _, namespace, name = key
        return self._reader.get(kind, namespace, name) if self._reader.has_synced(kind) else None


def _key(kind: ResourceKind, obj: Mapping[str, Any]) -> _Key:
    metadata = obj["metadata"]
    return kind.kind, metadata.get("namespace"), metadata["name"]


def _without_owners(metadata: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in metadata.items() if key != "ownerReferences"}


def _version_text(obj: Mapping[str, Any]) -> str | None:
    version = (obj.get("metadata") or {}).get("resourceVersion")
    return None if version is None else str(version)
