"""The builder: wire a reconciler to the kinds it watches in a few lines.

    ControllerBuilder(manager).for_(GRAPH).owns(DEPLOYMENT).owns(SERVICE).complete(reconciler)

`for_(kind)` enqueues the object itself, `owns(kind)` enqueues the controller owner of a child
(at `LOW_PRIORITY` for a child added or changed: see `manager.runtime.handler`),
`watches(kind, mapper)` enqueues whatever the mapper returns (at the `priority` given); mappers
get the cache's reader (`Mapper`), e.g. to find the objects an EndpointSlice or a Lease
concerns. Per-watch predicates filter that watch only; `with_event_filter` filters every watch.
Informers come from the manager's cache, one per kind with the options registered for it
(`Cache.register`), so watches of the same kind by several controllers and the reconcilers'
reads share one list+watch. The builder only composes `Controller`, `EnqueueHandler` and the
cache: anything it does can be written by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Self

from manager.runtime.clock import Clock
from manager.runtime.controller import Controller, Reconciler, ReconcilerFunc, Request
from manager.runtime.handler import EnqueueHandler, Mapper, enqueue_for_object, enqueue_for_owner
from manager.runtime.kinds import ResourceKind
from manager.runtime.manager import Manager
from manager.runtime.predicate import Predicate
from manager.runtime.workqueue import DEFAULT_PRIORITY, LOW_PRIORITY, RateLimiter

__all__ = ["ControllerBuilder"]


@dataclass(frozen=True)
class _Watch:
    kind: ResourceKind
    mapper: Mapper
    predicates: tuple[Predicate, ...]
    change_priority: int = DEFAULT_PRIORITY


class ControllerBuilder:
    """Collects watches and options, then `complete` adds the controller to the manager."""

    def __init__(self, manager: Manager) -> None:
        self._manager = manager
        self._name: str | None = None
        self._for: ResourceKind | None = None
        self._watches: list[_Watch] = []
        self._filters: list[Predicate] = []
        self._max_concurrent_reconciles = 1
        self._rate_limiter: RateLimiter[Request] | None = None
        self._reconcile_timeout: float | None = None
        self._needs_leader_election = True
        self._clock: Clock | None = None
        self._low_priority_workers = 0
        self._hold_low_priority: Callable[[], bool] = lambda: False

    def named(self, name: str) -> Self:
        """Name the controller (metrics, logs); defaults to the lowercased `for_` kind."""
        self._name = name
        return self

    def for_(self, kind: ResourceKind, *predicates: Predicate) -> Self:
        """Reconcile objects of `kind`: each event enqueues the object itself."""
        if self._for is not None:
            raise ValueError(f"for_ already set to {self._for}; a controller reconciles one kind")
        self._for = kind
        self._watches.insert(0, _Watch(kind, enqueue_for_object(), predicates))
        return self

    def owns(self, kind: ResourceKind, *predicates: Predicate) -> Self:
        """Watch children of `kind`: each event enqueues the child's controller owner, behind
        the queue's other work unless the child was deleted."""
        if self._for is None:
            raise ValueError("call for_ before owns: the owner kind is the for_ kind")
        mapper = enqueue_for_owner(self._for)
        self._watches.append(_Watch(kind, mapper, predicates, LOW_PRIORITY))
        return self

    def watches(
        self,
        kind: ResourceKind,
        mapper: Mapper,
        *predicates: Predicate,
        priority: int = DEFAULT_PRIORITY,
    ) -> Self:
        """Watch `kind`: each event enqueues the requests `mapper` returns for the object, at
        `priority` for an add or an update."""
        self._watches.append(_Watch(kind, mapper, predicates, priority))
        return self

    def with_event_filter(self, predicate: Predicate) -> Self:
        """Filter the events of every watch."""
        self._filters.append(predicate)
        return self

    def with_options(
        self,
        *,
        max_concurrent_reconciles: int | None = None,
        rate_limiter: RateLimiter[Request] | None = None,
        reconcile_timeout: float | None = None,
        needs_leader_election: bool | None = None,
        clock: Clock | None = None,
        low_priority_workers: int | None = None,
        hold_low_priority: Callable[[], bool] | None = None,
    ) -> Self:
        """`low_priority_workers`: workers beyond `max_concurrent_reconciles` that take only work
        queued at a lower priority, while `hold_low_priority()` is False (see `Controller`)."""
        if max_concurrent_reconciles is not None:
            self._max_concurrent_reconciles = max_concurrent_reconciles
        if rate_limiter is not None:
            self._rate_limiter = rate_limiter
        if reconcile_timeout is not None:
            self._reconcile_timeout = reconcile_timeout
        if needs_leader_election is not None:
            self._needs_leader_election = needs_leader_election
        if clock is not None:
            self._clock = clock
        if low_priority_workers is not None:
            self._low_priority_workers = low_priority_workers
        if hold_low_priority is not None:
            self._hold_low_priority = hold_low_priority
        return self

    def complete(self, reconciler: Reconciler | ReconcilerFunc) -> Controller:
        """Create the controller, hook its watches to the cache, and add it to the manager."""
        name = self._controller_name()
        cache = self._manager.cache
        if cache is None:
            raise ValueError("the manager has no cache to watch from")
        if not self._watches:
            raise ValueError(f"controller {name!r} watches nothing; call for_ or watches")
        if any(getattr(r, "name", None) == name for r in self._manager.runnables):
            raise ValueError(f"a controller named {name!r} already exists; names label metrics")
        controller = Controller(
            name,
            reconciler,
            max_concurrent_reconciles=self._max_concurrent_reconciles,
            rate_limiter=self._rate_limiter,
            reconcile_timeout=self._reconcile_timeout,
            needs_leader_election=self._needs_leader_election,
            clock=self._clock,
            api_availability=self._manager.api_availability,
            low_priority_workers=self._low_priority_workers,
            hold_low_priority=self._hold_low_priority,
        )
        for watch in self._watches:
            handler = EnqueueHandler(
                controller.queue,
                watch.mapper,
                cache.reader,
                (*self._filters, *watch.predicates),
                watch.change_priority,
            )
            controller.watch(cache.get_informer(watch.kind), handler)
        self._manager.add(controller)
        return controller

    def _controller_name(self) -> str:
        if self._name is not None:
            return self._name
        if self._for is None:
            raise ValueError("name the controller with named() or give it a for_ kind")
        return self._for.kind.lower()
