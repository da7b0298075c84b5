"""A shared informer: one reflector filling one store, fanning changes out to event handlers.

Handlers are called synchronously, in order, on the informer's task: they must be quick
(enqueue a key, never an API call). A handler that raises is logged and does not stop the
informer or the other handlers. A handler added after the first list gets a synthetic add
(`is_in_initial_list=True`) for every object already cached, so late controllers see the same
world as early ones.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import anyio
import anyio.abc

from manager.runtime.cache.reflector import LIST_PAGE_SIZE, Reflector
from manager.runtime.cache.store import IndexFunc, Store, StoreDelta, object_key
from manager.runtime.client.rest import RestClient, WatchEvent
from manager.runtime.clock import Clock
from manager.runtime.kinds import ResourceKind
from manager.runtime.logging import get_logger

__all__ = ["EventHandler", "Informer", "InformerList", "Transform", "strip_for_cache"]

log = get_logger(__name__)


class EventHandler(Protocol):
    def on_add(self, obj: dict[str, Any], is_in_initial_list: bool) -> None: ...

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None: ...

    def on_delete(self, obj: dict[str, Any]) -> None: ...


Transform = Callable[[dict[str, Any]], dict[str, Any]]
"""Trims an object before the store keeps it (before `strip_for_cache`, which then has less
to walk)."""


def strip_for_cache(
    kind: ResourceKind, obj: dict[str, Any], *, intern: bool = True
) -> dict[str, Any]:
    """Keep of `managedFields` (a fifth of a typical object) only who manages the object (each
    entry's `manager`, `operation` and `subresource`, in order), never their field sets: a
    controller adopting the fields it created needs no more (`client/created.py`). Fill in
    `apiVersion`/`kind` (list items lack them) and, with `intern` (not for a packed store, which
    keeps text), share equal strings between cached objects.

    The JSON decoder shares keys but makes a new string for every value: the same image, label,
    probe command and condition reason are kept once per object. Interning them takes about a
    third off the cache (a cached Deployment: 16.7 KB of Python memory, 11.1 KB interned). The
    uid and resourceVersion are unique to one object's version, so they stay out of the interned
    table (interned strings are freed with their last object; the table need not hold these)."""
    metadata = obj.get("metadata")
    if metadata is not None:
        if managed := metadata.pop("managedFields", None):
            metadata["managedFields"] = [_who(entry) for entry in managed]
        if intern:
            uid, version = metadata.pop("uid", None), metadata.pop("resourceVersion", None)
            _intern_strings(obj)
            if uid is not None:
                metadata["uid"] = uid
            if version is not None:
                metadata["resourceVersion"] = version
    obj["apiVersion"] = kind.api_version
    obj["kind"] = kind.kind
    return obj


_WHO = ("manager", "operation", "subresource")


def _who(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: entry[key] for key in _WHO if key in entry}


def _intern_strings(node: dict[str, Any] | list[Any]) -> None:
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in items:
        kind = type(value)
        if kind is str:
            node[key] = sys.intern(value)  # type: ignore[index]
        elif kind is dict or kind is list:
            _intern_strings(value)


class Informer:
    """Keeps `store` in step with the API server for one kind in one namespace (or all)."""

    def __init__(
        self,
        api: Any,
        kind: ResourceKind,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        indexers: Mapping[str, IndexFunc] | None = None,
        transform: Transform | None = None,
        packed: bool = False,
        clock: Clock | None = None,
        inactivity_timeout: float = 70.0,
        page_size: int = LIST_PAGE_SIZE,
    ) -> None:
        self.kind = kind
        self._transform = transform
        self.namespace = namespace if kind.namespaced else None
        self.store = Store(indexers, packed=packed)
        self._api = api
        self._handlers: list[EventHandler] = []
        self._synced = anyio.Event()
        self._reflector_options: dict[str, Any] = {
            "label_selector": label_selector,
            "field_selector": field_selector,
            "clock": clock,
            "inactivity_timeout": inactivity_timeout,
            "page_size": page_size,
        }
        self._reflector: Reflector | None = None
        self._last_resource_version: str | None = None

    @property
    def reflector(self) -> Reflector:
        """Created on first use, then kept: a cancelled informer run again resumes its watch."""
        if self._reflector is None:
            rest = RestClient.for_api(self._api)
            self._reflector = Reflector(
                rest, self.kind, self.namespace, self, **self._reflector_options
            )
        return self._reflector

    @property
    def has_synced(self) -> bool:
        """True once the first complete list is in the store."""
        return self._synced.is_set()

    @property
    def last_resource_version(self) -> str | None:
        """The resourceVersion the store is up to date with (of the last list or event), None
        before the first list."""
        return self._last_resource_version

    async def wait_for_sync(self) -> None:
        await self._synced.wait()

    def add_event_handler(self, handler: EventHandler) -> None:
        self._handlers.append(handler)
        if self.has_synced:
            for obj in self.store:
                self._call(handler.on_add, obj, True)

    def _prepare(self, obj: dict[str, Any]) -> dict[str, Any]:
        if self._transform is not None:
            obj = self._transform(obj)
        return strip_for_cache(self.kind, obj, intern=not self.store.packed)

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """List and watch until cancelled; `started` at once, `wait_for_sync` for the list."""
        task_status.started()
        await self.reflector.run()

    # ReflectorSink -------------------------------------------------------------------------

    def begin_list(self) -> InformerList:
        return InformerList(self)

    def replace(self, objects: list[dict[str, Any]], resource_version: str) -> None:
        """A whole list at once (what `begin_list` does page by page)."""
        listing = self.begin_list()
        listing.add(objects)
        listing.finish(resource_version)

    def apply(self, event: WatchEvent) -> None:
        obj = self._prepare(event.object)
        key = object_key(obj)
        version = obj["metadata"].get("resourceVersion")
        if version is not None:
            self._last_resource_version = str(version)
        if event.type == "DELETED":
            old = self.store.remove(key)
            if old is not None:
                self._dispatch(StoreDelta("deleted", obj, old), initial=False)
            return
        if version is not None and self.store.resource_version(key) == str(version):
            return  # already seen (a re-delivery): never hand handlers the same version twice
        old = self.store.upsert(obj)
        self._dispatch(StoreDelta("added" if old is None else "updated", obj, old), False)

    def _dispatch(self, delta: StoreDelta, initial: bool) -> None:
        for handler in self._handlers:
            if delta.type == "added":
                self._call(handler.on_add, delta.object, initial)
            elif delta.type == "updated":
                assert delta.old is not None
                self._call(handler.on_update, delta.old, delta.object)
            else:
                self._call(handler.on_delete, delta.object)

    def _call(self, method: Any, *args: Any) -> None:
        try:
            method(*args)
        except Exception:  # a handler bug must not stop the informer: it is a boundary
            log.exception("event handler failed", kind=self.kind.kind, handler=repr(method))


class InformerList:
    """One list into the informer, page by page: each page's changes are handed to the
    handlers as it arrives (a page held, not the whole list: a relist of thousands of objects
    would otherwise double the cache's memory for a moment), the deletions and the sync at the
    end."""

    def __init__(self, informer: Informer) -> None:
        self._informer = informer
        self._initial = not informer.has_synced
        self._relist = informer.store.relist()

    def add(self, objects: list[dict[str, Any]]) -> None:
        informer, relist = self._informer, self._relist
        for obj in objects:
            if relist.unchanged(obj):
                continue
            delta = relist.put(informer._prepare(obj))
            if delta is not None:
                informer._dispatch(delta, self._initial)

    def finish(self, resource_version: str) -> None:
        for delta in self._relist.finish():
            self._informer._dispatch(delta, self._initial)
        self._informer._last_resource_version = resource_version
        self._informer._synced.set()
