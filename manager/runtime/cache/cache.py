"""The cache: exactly one shared informer per kind, with options registered once.

Every consumer of a kind (the builder's watches, the reconcilers' reads through `reader`, the
mappers) shares one list+watch and one store, so the options that shape it are the kind's, not
the consumer's: `register(kind, label_selector=..., field_selector=..., indexers=...,
transform=...)` sets them, before the controllers that watch the kind are built (a transform
trims what is stored, like controller-runtime's `ByObject.Transform`: every reader sees the
trimmed object; `packed=True` keeps a kind's objects as JSON text, decoded on each read). A kind
nobody registered is cached whole the first time something watches it. Registering different
options for a kind that already has an informer raises `CacheOptionsConflictError` (a start-up
error: two consumers disagree about what the cache holds, and one of them would silently miss
objects). New indexers may be added to a registered kind; an index name bound to a different
function is a conflict.

In namespace-restricted mode (`Cache(api, namespace="team-a")`) every namespaced kind is listed
and watched in that namespace only; cluster-scoped kinds are always watched cluster-wide. An
informer created while the cache runs starts at once in the cache's task group.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc

from manager.runtime.cache.errors import CacheOptionsConflictError
from manager.runtime.cache.informer import Informer, Transform
from manager.runtime.cache.reader import CacheReader
from manager.runtime.cache.store import DEFAULT_INDEXERS, IndexFunc
from manager.runtime.clock import Clock
from manager.runtime.kinds import ResourceKind

__all__ = ["Cache", "KindOptions"]


@dataclass(frozen=True)
class KindOptions:
    """What the informer of one kind lists and watches, and the extra indexes of its store."""

    label_selector: str | None = None
    field_selector: str | None = None
    indexers: Mapping[str, IndexFunc] = field(default_factory=dict)
    transform: Transform | None = None
    """Applied to every object before it is stored (e.g. dropping what no reader needs)."""
    packed: bool = False
    """Objects kept as JSON text, decoded on each read (`Store`): for kinds held by the
    thousand and read seldom."""

    def describe(self) -> str:
        return f"label_selector={self.label_selector!r} field_selector={self.field_selector!r}"


class Cache:
    def __init__(
        self,
        api: Any,
        namespace: str | None = None,
        *,
        clock: Clock | None = None,
        inactivity_timeout: float = 70.0,
    ) -> None:
        self.api = api
        self.namespace = namespace
        self._clock = clock
        self._inactivity_timeout = inactivity_timeout
        self._informers: dict[ResourceKind, Informer] = {}
        self._options: dict[ResourceKind, KindOptions] = {}
        self._task_group: anyio.abc.TaskGroup | None = None
        self.reader = CacheReader(self)
        """Synchronous reads of what the informers hold (see `CacheReader`)."""

    def register(
        self,
        kind: ResourceKind,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        indexers: Mapping[str, IndexFunc] | None = None,
        transform: Transform | None = None,
        packed: bool = False,
    ) -> Informer:
        """Cache `kind` with these options (its informer is created now, started with the
        cache); see the module doc for what counts as a conflict."""
        wanted = KindOptions(
            label_selector, field_selector, dict(indexers or {}), transform, packed
        )
        if reserved := sorted(set(wanted.indexers) & set(DEFAULT_INDEXERS)):
            raise CacheOptionsConflictError(
                f"index names {reserved} of {kind} are built in; choose other names"
            )
        current = self._options.get(kind)
        if current is None:
            return self._create(kind, wanted)
        if (current.label_selector, current.field_selector) != (label_selector, field_selector):
            raise CacheOptionsConflictError(
                f"{kind} is already cached with {current.describe()}; cannot also cache it with "
                f"{wanted.describe()}: register each kind's options once, before building the "
                "controllers that watch it"
            )
        if transform is not None and transform is not current.transform:
            raise CacheOptionsConflictError(
                f"{kind} is already cached with another transform; register it once"
            )
        if packed and not current.packed:
            raise CacheOptionsConflictError(
                f"{kind} is already cached unpacked; register it packed before anything uses it"
            )
        informer = self._informers[kind]
        for name, func in wanted.indexers.items():
            existing = current.indexers.get(name)
            if existing is None:
                informer.store.add_indexer(name, func)
            elif existing is not func:
                raise CacheOptionsConflictError(
                    f"index {name!r} of {kind} is already registered with another function"
                )
        self._options[kind] = KindOptions(
            label_selector,
            field_selector,
            {**current.indexers, **wanted.indexers},
            current.transform,
            current.packed,
        )
        return informer

    def get_informer(self, kind: ResourceKind) -> Informer:
        """The informer of `kind`, created with its registered options (or none) on first use."""
        informer = self._informers.get(kind)
        if informer is None:
            informer = self._create(kind, KindOptions())
        return informer

    def find_informer(self, kind: ResourceKind) -> Informer | None:
        """The informer of `kind` if something registered or watched it; never creates one."""
        return self._informers.get(kind)

    def options(self, kind: ResourceKind) -> KindOptions | None:
        return self._options.get(kind)

    def _create(self, kind: ResourceKind, options: KindOptions) -> Informer:
        informer = Informer(
            self.api,
            kind,
            self.namespace if kind.namespaced else None,
            label_selector=options.label_selector,
            field_selector=options.field_selector,
            indexers=options.indexers,
            transform=options.transform,
            packed=options.packed,
            clock=self._clock,
            inactivity_timeout=self._inactivity_timeout,
        )
        self._informers[kind] = informer
        self._options[kind] = options
        if self._task_group is not None:
            self._task_group.start_soon(informer.run, name=f"informer {kind}")
        return informer

    @property
    def informers(self) -> list[Informer]:
        return list(self._informers.values())

    @property
    def has_synced(self) -> bool:
        return all(informer.has_synced for informer in self._informers.values())

    async def wait_for_sync(self) -> None:
        """Return once every informer created so far has completed its first list."""
        for informer in list(self._informers.values()):
            await informer.wait_for_sync()

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Run every informer (existing and future) until cancelled."""
        try:
            async with anyio.create_task_group() as task_group:
                self._task_group = task_group
                for informer in self._informers.values():
                    task_group.start_soon(informer.run, name=f"informer {informer.kind}")
                task_status.started()
                await anyio.sleep_forever()
        finally:
            self._task_group = None
