"""Event handlers: turn informer events into `Request`s on a controller's queue.

A handler is built from a mapper ((object, cache reader) -> requests) and the predicates that
filter events before mapping. Three mappers cover controller-runtime's handlers:

* `enqueue_for_object`: the object itself (what `for_` watches);
* `enqueue_for_owner`: the owner named by an ownerReference of the given kind, by default only
  the controller owner (`controller: true`), which is what `owns` watches;
* `enqueue_mapped`: any function, e.g. from an EndpointSlice to the models with the same base
  model hash (`reader.by_index`), or from a Lease to every object in its namespace
  (`reader.list`).

Mappers get the manager's `CacheReader` so they can look things up without closing over a
cache; like handlers they run on the informer's task and must be quick and synchronous. A mapper
that reads a kind whose first list has not completed (`CacheNotSyncedError`, only possible
during start-up) maps to nothing: nothing is lost, because the initial list of the controller's
own kind enqueues every object it reconciles.

Updates map both the old and the new object, so a child moving from one owner (or label) to
another enqueues both; the queue collapses duplicates.

`change_priority` is the queue priority of the requests an add or an update makes; a delete's are
always at the default. `owns` watches use `LOW_PRIORITY`: a child appearing or changing (its
status, mostly) asks for a report, while a child deleted asks for it to be made again, which is
as urgent as the owner's own changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from manager.runtime.cache.errors import CacheNotSyncedError
from manager.runtime.cache.reader import CacheReader
from manager.runtime.controller.reconcile import Request
from manager.runtime.kinds import ResourceKind
from manager.runtime.logging import get_logger
from manager.runtime.predicate import Predicate
from manager.runtime.workqueue import DEFAULT_PRIORITY

__all__ = [
    "EnqueueHandler",
    "Mapper",
    "enqueue_for_object",
    "enqueue_for_owner",
    "enqueue_mapped",
]

log = get_logger(__name__)

Object = dict[str, Any]
Mapper = Callable[[Object, CacheReader], Iterable[Request]]
"""Object (read-only, as everything the cache hands out) and the cache reader -> requests."""


class _Adder(Protocol):
    def add(self, item: Request, *, priority: int = DEFAULT_PRIORITY) -> None: ...


def enqueue_for_object() -> Mapper:
    """Map an object to a request for itself."""

    def requests(obj: Object, reader: CacheReader) -> Iterable[Request]:
        metadata = obj.get("metadata") or {}
        return (Request(metadata.get("namespace") or "", metadata["name"]),)

    return requests


def enqueue_for_owner(owner_kind: ResourceKind, *, only_controller: bool = True) -> Mapper:
    """Map an object to its owners of `owner_kind` (any version of its group).

    A namespaced owner lives in the object's namespace (Kubernetes forbids cross-namespace
    owners); a cluster-scoped owner gets the empty namespace.
    """

    def requests(obj: Object, reader: CacheReader) -> Iterable[Request]:
        metadata = obj.get("metadata") or {}
        namespace = (metadata.get("namespace") or "") if owner_kind.namespaced else ""
        return [
            Request(namespace, ref["name"])
            for ref in metadata.get("ownerReferences") or ()
            if ref.get("kind") == owner_kind.kind
            and _group(ref.get("apiVersion", "")) == owner_kind.group
            and (ref.get("controller") is True or not only_controller)
        ]

    return requests


def enqueue_mapped(mapper: Mapper) -> Mapper:
    """Use `mapper` as is; named for symmetry with the other handlers at the call site."""
    return mapper


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


@dataclass(frozen=True)
class EnqueueHandler:
    """An informer event handler: filter with `predicates`, map (with `reader`), add to
    `queue`."""

    queue: _Adder
    mapper: Mapper
    reader: CacheReader
    predicates: Sequence[Predicate] = ()
    change_priority: int = DEFAULT_PRIORITY

    def on_add(self, obj: Object, is_in_initial_list: bool = False) -> None:
        if all(p.create(obj) for p in self.predicates):
            self._enqueue(obj, priority=self.change_priority)

    def on_update(self, old: Object, new: Object) -> None:
        if all(p.update(old, new) for p in self.predicates):
            self._enqueue(old, new, priority=self.change_priority)

    def on_delete(self, obj: Object) -> None:
        if all(p.delete(obj) for p in self.predicates):
            self._enqueue(obj, priority=DEFAULT_PRIORITY)

    def _enqueue(self, *objects: Object, priority: int) -> None:
        try:
            requests = [request for obj in objects for request in self.mapper(obj, self.reader)]
        except CacheNotSyncedError as error:
            log.debug("mapper read an unsynced cache, skipped", err=str(error))
            return
        for request in dict.fromkeys(requests):
            self.queue.add(request, priority=priority)
