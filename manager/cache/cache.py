"""The cache: one shared informer per (kind, namespace scope, selectors), created on demand.

In namespace-restricted mode (`Cache(api, namespace="team-a")`) every namespaced kind is listed
and watched in that namespace only; cluster-scoped kinds are always watched cluster-wide. An
informer requested while the cache runs starts at once in the cache's task group.
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.abc

from manager.cache.informer import Informer
from manager.clock import Clock
from manager.kinds import ResourceKind

__all__ = ["Cache"]

InformerKey = tuple[ResourceKind, str | None, str | None, str | None]


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
        self._informers: dict[InformerKey, Informer] = {}
        self._task_group: anyio.abc.TaskGroup | None = None

    def get_informer(
        self,
        kind: ResourceKind,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> Informer:
        """The shared informer for `kind` in this cache's scope (started if the cache runs)."""
        namespace = self.namespace if kind.namespaced else None
        key = (kind, namespace, label_selector, field_selector)
        informer = self._informers.get(key)
        if informer is None:
            informer = Informer(
                self.api,
                kind,
                namespace,
                label_selector=label_selector,
                field_selector=field_selector,
                clock=self._clock,
                inactivity_timeout=self._inactivity_timeout,
            )
            self._informers[key] = informer
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
