"""Synchronous, read-only reads of the cache: what reconcilers and mappers look at.

Reads never wait and never leave the process. They answer from the informer of the kind, which
something must have created: a watch (`ControllerBuilder.for_/owns/watches`) or
`Cache.register`. A kind nobody caches raises `KindNotCachedError` at once rather than waiting
for a list that will never start, and a kind whose first list has not completed raises
`CacheNotSyncedError` rather than answering "absent" from a half-filled store (controllers start
only once the caches synced, so reconcilers never see it).

**The objects returned are the cached ones, shared, not copies: never mutate them.** A deep copy
of a 3 KB Pod costs about 270 µs here (about five times an orjson round trip), more than the
rest of a reconcile's reads together, and most reads only look. Copy what you change
(`copy.deepcopy(obj["spec"])`), or build new objects, as the pure builders do. Lists are new
lists (safe to sort or extend), sorted by namespace and name so what is derived from them does
not depend on the store's hash order.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any, Protocol

from manager.runtime.cache.errors import CacheNotSyncedError, IndexNotFoundError, KindNotCachedError
from manager.runtime.cache.informer import Informer
from manager.runtime.cache.selector import LabelSelector
from manager.runtime.cache.store import OWNER_UID_INDEX, Store, object_key
from manager.runtime.kinds import ResourceKind

__all__ = ["CacheReader", "Informers", "Labels"]

Labels = str | Mapping[str, str] | LabelSelector
"""A label selector: `"a=b,c in (d,e)"`, `{"a": "b"}` (equalities) or a parsed `LabelSelector`."""


class Informers(Protocol):
    """What reads need of a cache (`Cache` is one): the namespace it is restricted to, if
    any, and the informer of a kind, if something created one."""

    @property
    def namespace(self) -> str | None: ...

    def find_informer(self, kind: ResourceKind) -> Informer | None: ...


class CacheReader:
    """Reads of one `Cache` (`cache.reader`); see the module doc for the contract."""

    def __init__(self, cache: Informers) -> None:
        self._cache = cache

    def get(self, kind: ResourceKind, namespace: str | None, name: str) -> dict[str, Any] | None:
        """The cached object, or None when the cache does not hold it (absent or filtered out
        by the kind's selectors). `namespace` is ignored for cluster-scoped kinds."""
        store = self._store(kind, namespace)
        return store.get(namespace if kind.namespaced else None, name)

    def list(
        self,
        kind: ResourceKind,
        namespace: str | None = None,
        *,
        labels: Labels | None = None,
        owner_uid: str | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """Cached objects of `kind` in `namespace` (every namespace the cache sees when None)
        whose labels match `labels` and, when `owner_uid` is given, that have an
        ownerReference with that uid (any owner, controller or not)."""
        store = self._store(kind, namespace)
        namespace = namespace if kind.namespaced else None
        selector = _selector(labels)
        if owner_uid is None:
            found = store.list(namespace, selector)
        else:
            found = [
                obj
                for obj in store.by_index(OWNER_UID_INDEX, owner_uid)
                if (namespace is None or obj["metadata"].get("namespace") == namespace)
                and (selector is None or selector.matches(obj["metadata"].get("labels") or {}))
            ]
        return sorted(found, key=object_key)

    def by_index(self, kind: ResourceKind, index: str, value: str) -> builtins.list[dict[str, Any]]:
        """Cached objects of `kind` whose index `index` (registered with
        `Cache.register(kind, indexers=...)`, or a built-in one) produced `value`."""
        store = self._store(kind, None)
        if index not in store.index_names:
            raise IndexNotFoundError(
                f"{kind} has no index {index!r} (it has {sorted(store.index_names)}); register "
                f"it with cache.register({kind.kind}, indexers={{{index!r}: ...}})"
            )
        return sorted(store.by_index(index, value), key=object_key)

    def has_seen(self, kind: ResourceKind, resource_version: str | None) -> bool:
        """Whether the cache of `kind` is up to date with `resource_version` (a write's answer):
        it holds every change up to it of what it watches, so an object it then lacks was
        deleted since. False when unknown (not synced, or versions that are not numbers)."""
        informer = self._cache.find_informer(kind)
        if informer is None or not informer.has_synced or resource_version is None:
            return False
        try:
            return int(informer.last_resource_version or "") >= int(resource_version)
        except ValueError:
            return False

    def has_synced(self, kind: ResourceKind) -> bool:
        """Whether reads of `kind` are answered (its informer exists and has listed once)."""
        informer = self._cache.find_informer(kind)
        return informer is not None and informer.has_synced

    def _store(self, kind: ResourceKind, namespace: str | None) -> Store:
        informer = self._cache.find_informer(kind)
        if informer is None:
            raise KindNotCachedError(
                f"{kind} is not cached: watch it (ControllerBuilder.for_/owns/watches) or "
                f"register it (cache.register({kind.kind}, ...)) before reading it"
            )
        scope = self._cache.namespace
        if kind.namespaced and scope is not None and namespace not in (None, scope):
            raise KindNotCachedError(
                f"{kind} in namespace {namespace!r} is not cached: the cache sees namespace "
                f"{scope!r} only"
            )
        if not informer.has_synced:
            raise CacheNotSyncedError(f"{kind} is cached but its first list has not completed")
        return informer.store


def _selector(labels: Labels | None) -> LabelSelector | None:
    if labels is None or isinstance(labels, LabelSelector):
        return labels
    return LabelSelector.parse(labels)
