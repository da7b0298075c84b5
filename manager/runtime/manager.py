"""The manager: owns every long-lived task of the operator in one anyio task group.

Start order (controller-runtime's): HTTP servers (health probes, metrics) -> other runnables
(webhook servers and anything else that does not need leadership) -> caches, waiting until they
have synced -> leader election -> runnables that need leadership (controllers). Webhooks start
before caches because a conversion webhook may be needed to list our own kinds; the pod turns
ready (`/readyz`) once the caches have synced, before it wins the election, so stand-by replicas
are ready too and fail-over needs no restart.

Graceful shutdown (`request_shutdown`, SIGTERM or SIGINT with `handle_signals=True`) runs in the
reverse order: controllers drain (finish in-flight reconciles, start no new ones) within
`graceful_shutdown_timeout`, then the lease is released so a stand-by takes over at once, then
caches, other runnables and servers are cancelled. A second signal cancels everything at once, and
so does a first one that arrives before start-up finished (nothing runs yet that could be drained).
Losing leadership stops the controllers without draining (another replica may already be acting)
and makes `run` raise `LeadershipLostError`, so the process exits and restarts as a candidate.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import anyio
import anyio.abc
from anyio.abc import TaskStatus

from manager.runtime.cache.reader import CacheReader
from manager.runtime.client import ApiAvailability
from manager.runtime.controller.controller import EventSource
from manager.runtime.errors import LeadershipLostError
from manager.runtime.health import DEFAULT_HEALTH_PORT, HealthProbes
from manager.runtime.kinds import ResourceKind
from manager.runtime.logging import get_logger
from manager.runtime.metrics.exporter import DEFAULT_METRICS_PORT, metrics_server

__all__ = [
    "CacheLike",
    "Drainable",
    "LeaderElectorLike",
    "Manager",
    "Runnable",
]

log = get_logger(__name__)


class Runnable(Protocol):
    """Anything the manager runs: ready when it calls `task_status.started()`, runs until
    cancelled. An optional `needs_leader_election` attribute (default False) defers it until this
    replica is the leader."""

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None: ...


@runtime_checkable
class Drainable(Protocol):
    """A runnable that can stop taking work and finish what it has (controllers)."""

    async def drain(self) -> None: ...


class CacheLike(Runnable, Protocol):
    """What the manager and the builder need of `manager.runtime.cache.Cache`."""

    @property
    def reader(self) -> CacheReader: ...
    def get_informer(self, kind: ResourceKind) -> EventSource: ...
    async def wait_for_sync(self) -> None: ...


class LeaderElectorLike(Protocol):
    async def acquire(self) -> None: ...
    async def hold(self) -> None: ...
    async def release(self) -> None: ...


@dataclass
class _Running:
    """One started runnable: the scope that cancels it and an event set when it has ended."""

    runnable: Runnable
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    ended: anyio.Event = field(default_factory=anyio.Event)

    async def stop(self) -> None:
        self.scope.cancel()
        await self.ended.wait()


class Manager:
    """Runs servers, runnables, caches and (leader-elected) controllers; see the module doc."""

    def __init__(
        self,
        *,
        cache: CacheLike | None = None,
        leader_elector: LeaderElectorLike | None = None,
        bind_host: str = "0.0.0.0",
        health_port: int | None = DEFAULT_HEALTH_PORT,
        metrics_port: int | None = DEFAULT_METRICS_PORT,
        graceful_shutdown_timeout: float = 30.0,
        cache_sync_timeout: float = 120.0,
        api_availability: ApiAvailability | None = None,
    ) -> None:
        self.cache = cache
        self.api_availability = api_availability
        self.leader_elector = leader_elector
        self.health = HealthProbes()
        self.health.add_readyz_check("caches-synced", lambda: self._caches_synced)
        self.health_server = (
            self.health.server(host=bind_host, port=health_port)
            if health_port is not None
            else None
        )
        self.metrics_server = (
            metrics_server(host=bind_host, port=metrics_port) if metrics_port is not None else None
        )
        self.graceful_shutdown_timeout = graceful_shutdown_timeout
        self.cache_sync_timeout = cache_sync_timeout
        # First of all: the other runnables' first requests may find the API server away.
        self._runnables: list[Runnable] = [api_availability] if api_availability else []
        self._leader_runnables: list[Runnable] = []
        self._caches_synced = False
        self._started = False
        self._ready = False
        self._shutdown = anyio.Event()
        self._leadership_lost = False
        self._elected = False

    def add(self, runnable: Runnable) -> None:
        """Run `runnable` in its group; must be called before `run`."""
        if self._started:
            raise RuntimeError("runnables must be added before the manager runs")
        if getattr(runnable, "needs_leader_election", False):
            self._leader_runnables.append(runnable)
        else:
            self._runnables.append(runnable)

    @property
    def runnables(self) -> Sequence[Runnable]:
        return (*self._runnables, *self._leader_runnables)

    @property
    def is_leader(self) -> bool:
        """Whether this replica runs the leader-only runnables now."""
        return self._elected

    def request_shutdown(self) -> None:
        """Begin graceful shutdown; `run` returns once it is done."""
        self._shutdown.set()

    async def run(
        self,
        *,
        handle_signals: bool = False,
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Start everything in order, report ready once caches synced, run until shut down."""
        self._started = True
        async with anyio.create_task_group() as tg:
            if handle_signals:
                tg.start_soon(self._watch_signals, tg.cancel_scope)
            servers = [s for s in (self.health_server, self.metrics_server) if s is not None]
            started_servers = [await self._start(tg, server) for server in servers]
            started_others = [await self._start(tg, runnable) for runnable in self._runnables]
            started_caches = await self._start_caches(tg)
            log.info("manager ready", runnables=len(self.runnables))
            self._ready = True
            task_status.started()
            leaders: list[_Running] = []
            leading = anyio.CancelScope()
            tg.start_soon(self._lead, tg, leaders, leading)
            await self._shutdown.wait()
            leading.cancel()
            await self._stop_leader_runnables(leaders)
            for group in (started_caches, started_others, started_servers):
                for running in reversed(group):
                    await running.stop()
            tg.cancel_scope.cancel()
        log.info("manager stopped", leadership_lost=self._leadership_lost)
        if self._leadership_lost:
            raise LeadershipLostError("leader election lost")

    async def _start(self, tg: anyio.abc.TaskGroup, runnable: Runnable) -> _Running:
        running = _Running(runnable)
        await tg.start(self._run_one, running)
        return running

    @staticmethod
    async def _run_one(running: _Running, *, task_status: TaskStatus[None]) -> None:
        try:
            with running.scope:
                await running.runnable.run(task_status=task_status)
        finally:
            running.ended.set()

    async def _start_caches(self, tg: anyio.abc.TaskGroup) -> list[_Running]:
        if self.cache is None:
            self._caches_synced = True
            return []
        running = await self._start(tg, self.cache)
        with anyio.fail_after(self.cache_sync_timeout):
            await self.cache.wait_for_sync()
        self._caches_synced = True
        log.info("caches synced")
        return [running]

    async def _lead(
        self, tg: anyio.abc.TaskGroup, leaders: list[_Running], leading: anyio.CancelScope
    ) -> None:
        """Win the election (if any), start leader runnables, and notice when leadership ends."""
        with leading:
            if self.leader_elector is not None:
                await self.leader_elector.acquire()
            self._elected = True
            for runnable in self._leader_runnables:
                leaders.append(await self._start(tg, runnable))
            if self.leader_elector is None:
                return
            await self.leader_elector.hold()
            self._leadership_lost = True
            log.error("leader election lost")
            for running in leaders:  # no draining: another replica may already be in charge
                running.scope.cancel()
            self.request_shutdown()

    async def _stop_leader_runnables(self, leaders: list[_Running]) -> None:
        drainable = [
            (running, runnable)
            for running in leaders
            if isinstance(runnable := running.runnable, Drainable)
        ]
        with anyio.move_on_after(self.graceful_shutdown_timeout) as draining:
            async with anyio.create_task_group() as drains:
                for _, runnable in drainable:
                    drains.start_soon(runnable.drain)
            for running, _ in drainable:
                await running.ended.wait()
        if draining.cancelled_caught:
            log.warning("graceful shutdown timed out", timeout=self.graceful_shutdown_timeout)
        for running in reversed(leaders):
            await running.stop()
        if self._elected and self.leader_elector is not None and not self._leadership_lost:
            await self.leader_elector.release()
        self._elected = False

    async def _watch_signals(self, everything: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for signum in signals:
                if not self._ready:
                    # Still starting (waiting for the API server, a certificate, a cache):
                    # nothing to drain, and the start-up steps never look at the shutdown flag.
                    log.info("shutdown signal received while starting", signal=signum)
                    self._shutdown.set()
                    everything.cancel()
                    return
                if self._shutdown.is_set():
                    log.warning("second signal, exiting at once", signal=signum)
                    everything.cancel()
                    return
                log.info("shutdown signal received", signal=signum)
                self.request_shutdown()
