"""The informer's store: plain dicts keyed by (namespace, name), with secondary indexes.

Objects are kept exactly as given (the informer strips `managedFields` before they get here) and
are shared, not copied, with readers: a deep copy per read costs ~100 µs for a Pod-sized object,
more than everything else a cached read does. Readers must treat them as read-only
(`manager.runtime.cache.CacheReader` says so to its callers).

A store made with `packed=True` keeps each object as its compact JSON text instead, and decodes it
on every read (a fresh dict per read, ~8 µs for a Deployment): a cached Deployment is ~4 KB of
text against ~12 KB of dicts, for kinds read seldom (once per reconcile of their owner) and held
by the thousand.

Built-in indexes: `namespace`, `owner_uid` (every ownerReference's uid) and `label` (`key=value`,
used to answer equality label selectors without a scan). The label index covers only the label
keys that have been asked for (a key is indexed, over every stored object, the first time a
selector or `by_index` names it): indexing every label of every object cost about 0.8 KB per
object, for keys no reader ever selects on.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import orjson

from manager.runtime.cache.selector import LabelSelector

__all__ = [
    "DEFAULT_INDEXERS",
    "LABEL_INDEX",
    "NAMESPACE_INDEX",
    "OWNER_UID_INDEX",
    "IndexFunc",
    "ObjectKey",
    "Relist",
    "Store",
    "StoreDelta",
    "object_key",
]

NAMESPACE_INDEX = "namespace"
OWNER_UID_INDEX = "owner_uid"
LABEL_INDEX = "label"

ObjectKey = tuple[str, str]
IndexFunc = Callable[[Mapping[str, Any]], Iterable[str]]


def object_key(obj: Mapping[str, Any]) -> ObjectKey:
    metadata = obj["metadata"]
    return metadata.get("namespace") or "", metadata["name"]


def _namespace_values(obj: Mapping[str, Any]) -> Iterable[str]:
    return (obj["metadata"].get("namespace") or "",)


def _owner_uid_values(obj: Mapping[str, Any]) -> Iterable[str]:
    return [ref["uid"] for ref in obj["metadata"].get("ownerReferences") or () if "uid" in ref]


def _no_values(obj: Mapping[str, Any]) -> Iterable[str]:
    return ()


DEFAULT_INDEXERS: Mapping[str, IndexFunc] = {
    NAMESPACE_INDEX: _namespace_values,
    OWNER_UID_INDEX: _owner_uid_values,
    LABEL_INDEX: _no_values,  # each store indexes the label keys asked for (`Store.index_label`)
}


@dataclass(frozen=True, slots=True)
class StoreDelta:
    """One change `Store.replace` found: `old` is set for updates and deletions."""

    type: Literal["added", "updated", "deleted"]
    object: dict[str, Any]
    old: dict[str, Any] | None = None


class _Packed(NamedTuple):
    """A packed store's object: its compact JSON text, and its resourceVersion kept beside it
    (a watch event or a relist compares versions without decoding).

    orjson, not the standard library's json, which was 7% of the operator's CPU at 500 graphs
    (every Deployment and Pod event packed, every read decoded); its output is copied into a
    `str` because the `bytes` orjson returns keeps the capacity of its ~32 KiB write buffer: the
    cached Deployments, Pods and Services took twice their size (RSS 138 to 156 MiB)."""

    resource_version: str | None
    text: str


_Entry = dict[str, Any] | _Packed


def _unpack(entry: _Entry) -> dict[str, Any]:
    if isinstance(entry, _Packed):
        obj: dict[str, Any] = orjson.loads(entry.text)
        return obj
    return entry


class Store:
    """Objects by key, plus `index name -> index value -> keys`."""

    def __init__(
        self, indexers: Mapping[str, IndexFunc] | None = None, *, packed: bool = False
    ) -> None:
        self._packed = packed
        self._objects: dict[ObjectKey, _Entry] = {}
        self._label_keys: set[str] = set()
        self._indexers: dict[str, IndexFunc] = {
            **DEFAULT_INDEXERS,
            LABEL_INDEX: self._label_values,
            **(indexers or {}),
        }
        self._indexes: dict[str, dict[str, set[ObjectKey]]] = {n: {} for n in self._indexers}

    @property
    def packed(self) -> bool:
        """Whether objects are kept as JSON text (`Cache.register(..., packed=True)`)."""
        return self._packed

    def __len__(self) -> int:
        return len(self._objects)

    def __contains__(self, key: object) -> bool:
        return key in self._objects

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter([_unpack(entry) for entry in self._objects.values()])

    def object_keys(self) -> builtins.list[ObjectKey]:
        return list(self._objects)

    def add_indexer(self, name: str, func: IndexFunc) -> None:
        """Register an index; objects already stored are indexed at once."""
        if name in self._indexers:
            raise ValueError(f"index {name!r} already exists")
        self._indexers[name] = func
        self._indexes[name] = {}
        for key, entry in self._objects.items():
            self._index_one(name, key, _unpack(entry))

    def index_label(self, key: str) -> None:
        """Index label `key` from now on, and over the objects already stored."""
        if key in self._label_keys:
            return
        self._label_keys.add(key)
        index = self._indexes[LABEL_INDEX]
        for object_key_, entry in self._objects.items():
            value = (_unpack(entry)["metadata"].get("labels") or {}).get(key)
            if value is not None:
                index.setdefault(f"{key}={value}", set()).add(object_key_)

    def _label_values(self, obj: Mapping[str, Any]) -> Iterable[str]:
        labels = obj["metadata"].get("labels") or {}
        return [f"{key}={labels[key]}" for key in self._label_keys if key in labels]

    def get(self, namespace: str | None, name: str) -> dict[str, Any] | None:
        entry = self._objects.get((namespace or "", name))
        return None if entry is None else _unpack(entry)

    def resource_version(self, key: ObjectKey) -> str | None:
        """The stored version of `key` (None when absent), without decoding a packed object."""
        entry = self._objects.get(key)
        if isinstance(entry, _Packed):
            return entry.resource_version
        return None if entry is None else _resource_version(entry)

    def list(
        self,
        namespace: str | None = None,
        label_selector: str | Mapping[str, str] | LabelSelector | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """Objects in `namespace` (all when None) whose labels match `label_selector`."""
        selector = (
            label_selector
            if isinstance(label_selector, LabelSelector) or label_selector is None
            else LabelSelector.parse(label_selector)
        )
        candidates: set[ObjectKey] | None = None
        if namespace is not None:
            candidates = self._indexes[NAMESPACE_INDEX].get(namespace, set())
        if selector is not None:
            for key, value in selector.equalities()[:1]:
                self.index_label(key)
                labelled = self._indexes[LABEL_INDEX].get(f"{key}={value}", set())
                candidates = labelled if candidates is None else candidates & labelled
        objects = [
            _unpack(entry)
            for entry in (
                self._objects.values()
                if candidates is None
                else [self._objects[key] for key in candidates]
            )
        ]
        if selector is None:
            return objects
        return [o for o in objects if selector.matches(o["metadata"].get("labels") or {})]

    @property
    def index_names(self) -> frozenset[str]:
        return frozenset(self._indexers)

    def by_index(self, index_name: str, value: str) -> builtins.list[dict[str, Any]]:
        if index_name == LABEL_INDEX:
            self.index_label(value.partition("=")[0])
        keys = self._indexes[index_name].get(value, ())
        return [_unpack(self._objects[key]) for key in keys]

    def index_values(self, index_name: str) -> builtins.list[str]:
        return list(self._indexes[index_name])

    def upsert(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Store `obj`, returning the object it replaced (None for a new key)."""
        key = object_key(obj)
        entry = self._objects.get(key)
        old = None if entry is None else _unpack(entry)
        if old is not None:
            self._unindex(key, old)
        self._objects[key] = self._pack(obj)
        for name in self._indexers:
            self._index_one(name, key, obj)
        return old

    def remove(self, key: ObjectKey) -> dict[str, Any] | None:
        entry = self._objects.pop(key, None)
        old = None if entry is None else _unpack(entry)
        if old is not None:
            self._unindex(key, old)
        return old

    def _pack(self, obj: dict[str, Any]) -> _Entry:
        if not self._packed:
            return obj
        return _Packed(_resource_version(obj), orjson.dumps(obj).decode())

    def replace(self, objects: Iterable[dict[str, Any]]) -> builtins.list[StoreDelta]:
        """Make the store hold exactly `objects` (a relist) and say what changed."""
        relist = self.relist()
        deltas = [delta for obj in objects if (delta := relist.put(obj)) is not None]
        return deltas + relist.finish()

    def relist(self) -> Relist:
        """Start replacing the store's content with a list that arrives page by page."""
        return Relist(self)

    def _index_one(self, name: str, key: ObjectKey, obj: Mapping[str, Any]) -> None:
        index = self._indexes[name]
        for value in self._indexers[name](obj):
            index.setdefault(value, set()).add(key)

    def _unindex(self, key: ObjectKey, obj: Mapping[str, Any]) -> None:
        for name, func in self._indexers.items():
            index = self._indexes[name]
            for value in func(obj):
                keys = index.get(value)
                if keys is not None:
                    keys.discard(key)
                    if not keys:
                        del index[value]


class Relist:
    """One relist into a store, fed page by page so that only one page is in memory at a time.

    Objects whose resourceVersion did not change produce no delta (and are dropped at once), so
    a relist after a 410 replays only what the interrupted watch missed: updates, new objects and,
    at `finish`, the deletions that happened during the gap. Each page applied is a real version
    of its objects, so a store read mid-list is never wrong about any one object, only behind.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._seen: set[ObjectKey] = set()

    def unchanged(self, obj: Mapping[str, Any]) -> bool:
        """Note `obj` as listed; True when the store holds this very version (so the caller
        need not prepare it at all: a relist mostly finds what it has)."""
        key = object_key(obj)
        self._seen.add(key)
        stored = self._store.resource_version(key)
        return stored is not None and stored == _resource_version(obj)

    def put(self, obj: dict[str, Any]) -> StoreDelta | None:
        if self.unchanged(obj):
            return None
        old = self._store.upsert(obj)
        return StoreDelta("added" if old is None else "updated", obj, old)

    def finish(self) -> builtins.list[StoreDelta]:
        """Remove what the list did not hold; the deletions, as deltas."""
        store = self._store
        gone = [store.remove(key) for key in store.object_keys() if key not in self._seen]
        return [StoreDelta("deleted", obj, obj) for obj in gone if obj is not None]


def _resource_version(obj: Mapping[str, Any]) -> str | None:
    rv = obj["metadata"].get("resourceVersion")
    return str(rv) if rv is not None else None
