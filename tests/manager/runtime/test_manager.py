import os
import signal
from functools import partial
from typing import Any

import aiohttp
import anyio
import pytest
from anyio.abc import TaskStatus

from manager.runtime.controller import Controller, Request
from manager.runtime.errors import LeadershipLostError
from manager.runtime.kinds import ResourceKind
from manager.runtime.manager import (
    Manager,
)

pytestmark = pytest.mark.anyio

events: list[str] = []


@pytest.fixture(autouse=True)
def clear_events() -> None:
    events.clear()


class Recording:
    """A runnable that logs when it starts and stops."""

    def __init__(self, name: str, *, needs_leader_election: bool = False) -> None:
        self.name = name
        self.needs_leader_election = needs_leader_election

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        events.append(f"start {self.name}")
        task_status.started()
        try:
            await anyio.sleep_forever()
        finally:
            events.append(f"stop {self.name}")


class FakeCache(Recording):
    def __init__(self) -> None:
        super().__init__("cache")
        self.synced = anyio.Event()

    def get_informer(self, kind: ResourceKind) -> Any:
        raise NotImplementedError

    async def wait_for_sync(self) -> None:
        await self.synced.wait()
        events.append("cache synced")


class FakeElector:
    def __init__(self) -> None:
        self.elected = anyio.Event()
        self.lost = anyio.Event()
        self.released = False

    async def acquire(self) -> None:
        await self.elected.wait()
        events.append("elected")

    async def hold(self) -> None:
        await self.lost.wait()

    async def release(self) -> None:
        self.released = True
        events.append("released")


def quiet_manager(**options: Any) -> Manager:
    return Manager(health_port=None, metrics_port=None, **options)


async def test_start_order_and_reverse_stop_order() -> None:
    cache, elector = FakeCache(), FakeElector()
    manager = quiet_manager(cache=cache, leader_elector=elector)
    manager.add(Recording("controller", needs_leader_election=True))
    manager.add(Recording("webhook-server"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(manager.run)
        await anyio.wait_all_tasks_blocked()
        assert events == ["start webhook-server", "start cache"]
        assert not manager.health.passes("readyz")
        cache.synced.set()
        await anyio.wait_all_tasks_blocked()
        assert manager.health.passes("readyz")
        assert "start controller" not in events, "controllers wait for the election"
        elector.elected.set()
        await anyio.wait_all_tasks_blocked()
        assert manager.is_leader
        manager.request_shutdown()

    assert events == [
        "start webhook-server",
        "start cache",
        "cache synced",
        "elected",
        "start controller",
        "stop controller",
        "released",
        "stop cache",
        "stop webhook-server",
    ]


async def test_servers_come_up_first_and_readyz_turns_green_after_cache_sync() -> None:
    cache = FakeCache()
    manager = Manager(cache=cache, bind_host="127.0.0.1", health_port=0, metrics_port=0)

    async def get(path: str, port: int) -> int:
        async with aiohttp.ClientSession() as s, s.get(f"http://127.0.0.1:{port}{path}") as r:
            return r.status

    async with anyio.create_task_group() as tg:
        tg.start_soon(manager.run)
        await anyio.wait_all_tasks_blocked()
        assert manager.health_server is not None
        assert manager.metrics_server is not None
        health, metrics = manager.health_server.port, manager.metrics_server.port
        assert events == ["start cache"]
        assert await get("/healthz", health) == 200
        assert await get("/readyz", health) == 500
        assert await get("/metrics", metrics) == 200
        cache.synced.set()
        await anyio.wait_all_tasks_blocked()
        assert await get("/readyz", health) == 200
        manager.request_shutdown()


async def test_shutdown_drains_in_flight_reconciles() -> None:
    started, finished = anyio.Event(), anyio.Event()
    release = anyio.Event()

    async def reconcile(request: Request) -> None:
        started.set()
        await release.wait()
        finished.set()

    manager = quiet_manager()
    controller = Controller("manager-drain", reconcile)
    manager.add(controller)
    controller.queue.add(Request("ns", "a"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(manager.run)
        await started.wait()
        manager.request_shutdown()
        await anyio.wait_all_tasks_blocked()
        assert not finished.is_set()
        release.set()

    assert finished.is_set()


async def test_shutdown_gives_up_on_reconciles_that_outlive_the_deadline() -> None:
    started, cancelled = anyio.Event(), anyio.Event()

    async def reconcile(request: Request) -> None:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()

    manager = quiet_manager(graceful_shutdown_timeout=0.05)
    controller = Controller("manager-deadline", reconcile)
    manager.add(controller)
    controller.queue.add(Request("ns", "a"))
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(manager.run)
            await started.wait()
            manager.request_shutdown()

    assert cancelled.is_set()


async def test_losing_leadership_stops_controllers_and_fails_the_run() -> None:
    elector = FakeElector()
    elector.elected.set()
    manager = quiet_manager(leader_elector=elector)
    manager.add(Recording("controller", needs_leader_election=True))
    manager.add(Recording("server"))

    with pytest.RaisesGroup(LeadershipLostError):
        async with anyio.create_task_group() as tg:
            tg.start_soon(manager.run)
            await anyio.wait_all_tasks_blocked()
            elector.lost.set()

    assert events == [
        "start server",
        "elected",
        "start controller",
        "stop controller",
        "stop server",
    ]
    assert not elector.released, "a lost lease is not ours to release"


async def test_without_leader_election_controllers_start_after_caches() -> None:
    cache = FakeCache()
    cache.synced.set()
    manager = quiet_manager(cache=cache)
    manager.add(Recording("controller", needs_leader_election=True))
    async with anyio.create_task_group() as tg:
        await tg.start(manager.run)
        await anyio.wait_all_tasks_blocked()
        manager.request_shutdown()

    assert events[:3] == ["start cache", "cache synced", "start controller"]


async def test_sigterm_shuts_down_gracefully() -> None:
    manager = quiet_manager()
    manager.add(Recording("server"))
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            await tg.start(partial(manager.run, handle_signals=True))
            await anyio.wait_all_tasks_blocked()
            os.kill(os.getpid(), signal.SIGTERM)

    assert events == ["start server", "stop server"]


async def test_sigterm_while_still_starting_stops_at_once() -> None:
    """A runnable that never reports started (an API server that never answers) must not make
    the process deaf to SIGTERM."""

    class NeverStarts:
        async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            events.append("waiting forever")
            await anyio.sleep_forever()

    manager = quiet_manager()
    manager.add(NeverStarts())
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(partial(manager.run, handle_signals=True))
            await anyio.wait_all_tasks_blocked()
            os.kill(os.getpid(), signal.SIGTERM)

    assert events == ["waiting forever"]


async def test_a_failing_runnable_fails_the_manager() -> None:
    class Broken:
        async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            task_status.started()
            raise RuntimeError("port in use")

    manager = quiet_manager()
    manager.add(Broken())
    with pytest.RaisesGroup(pytest.RaisesExc(RuntimeError, match="port in use")):
        await manager.run()


async def test_runnables_cannot_be_added_once_running() -> None:
    manager = quiet_manager()
    async with anyio.create_task_group() as tg:
        await tg.start(manager.run)
        with pytest.raises(RuntimeError, match="before the manager runs"):
            manager.add(Recording("late"))
        manager.request_shutdown()
