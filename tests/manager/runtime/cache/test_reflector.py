import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from manager.runtime.cache.reflector import Reflector
from manager.runtime.client.availability import ApiAvailability
from manager.runtime.client.errors import TransportError, error_from_status
from manager.runtime.client.rest import WatchEvent
from manager.runtime.clock import FakeClock
from manager.runtime.kinds import CONFIG_MAP

pytestmark = pytest.mark.anyio


class Sink:
    def begin_list(self) -> Any:
        raise AssertionError("the reflector resumes its watch: no list")

    def apply(self, event: WatchEvent) -> None:
        pass


class RestartingApiServer:
    """Watches as a restarting API server answers them: no answer while it is `down`, then
    429 for `initializing` more watches once `/readyz` is ready, then a watch that stays open."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.down = True
        self.initializing = 1
        self.watches_at: list[float] = []
        self.availability = ApiAvailability(self.readyz, clock)

    async def readyz(self) -> bool:
        return not self.down

    @contextlib.asynccontextmanager
    async def watch(self, *args: Any, **kwargs: Any) -> AsyncIterator[AsyncIterator[WatchEvent]]:
        self.watches_at.append(self.clock.now())
        if self.down:
            self.availability.lost()
            raise TransportError("watch: cannot connect: connection refused")
        if self.initializing:
            self.initializing -= 1
            raise error_from_status({"code": 429, "message": "storage is (re)initializing"})
        yield self.open()

    async def open(self) -> AsyncIterator[WatchEvent]:
        await anyio.sleep_forever()
        yield WatchEvent("BOOKMARK", {})  # pragma: no cover


async def test_a_watch_failing_once_the_api_server_is_back_waits_the_first_backoff_step() -> None:
    clock = FakeClock(start=0.0)
    server = RestartingApiServer(clock)
    reflector = Reflector(server, CONFIG_MAP, "ns", Sink(), clock=clock)  # type: ignore[arg-type]
    reflector.resource_version = "7"
    async with anyio.create_task_group() as tg:
        await tg.start(server.availability.run)
        tg.start_soon(reflector.run)
        for _ in range(120):  # two minutes away: the backoff grows to its 30 s cap
            await clock.settle(0.5)
        assert server.watches_at[-1] - server.watches_at[-2] >= 12.8
        server.down = False
        for _ in range(40):
            await clock.settle(0.1)
        tg.cancel_scope.cancel()
    *_, last_refused, back, opened = server.watches_at
    assert last_refused < back == pytest.approx(61.0), "the first ready probe ends the 30 s wait"
    # 0.8 s stretched by up to 100 % jitter, seen on 0.1 s steps: the outage's 30 s is forgotten.
    assert opened - back <= 1.7


class SlowToAnswerApiServer(RestartingApiServer):
    """A watch takes `answer_after` seconds to fail (a connection timing out): the API server
    can come back while one is in flight, which then fails as the server answers by then."""

    answer_after = 2.0
    in_flight = False

    @contextlib.asynccontextmanager
    async def watch(self, *args: Any, **kwargs: Any) -> AsyncIterator[AsyncIterator[WatchEvent]]:
        self.in_flight = True
        await self.clock.sleep_until(self.clock.now() + self.answer_after)
        self.in_flight = False
        async with super().watch(*args, **kwargs) as events:
            yield events


async def test_a_watch_in_flight_when_the_api_server_comes_back_fails_into_the_first_step() -> None:
    clock = FakeClock(start=0.0)
    server = SlowToAnswerApiServer(clock)
    reflector = Reflector(server, CONFIG_MAP, "ns", Sink(), clock=clock)  # type: ignore[arg-type]
    reflector.resource_version = "7"
    async with anyio.create_task_group() as tg:
        await tg.start(server.availability.run)
        tg.start_soon(reflector.run)
        for _ in range(120):  # a minute away: the backoff grows past 12.8 s
            await clock.settle(0.5)
        while not server.in_flight:
            await clock.settle(0.1)
        # Back within the probe's second, while this watch waits 2 s for its answer: a 429.
        server.down = False
        for _ in range(60):
            await clock.settle(0.1)
        tg.cancel_scope.cancel()
    assert server.availability.returns == 1
    *_, failed_with_429, opened = server.watches_at
    # 2 s in flight, then 0.8 s stretched by up to 100 % jitter, seen on 0.1 s steps.
    assert opened - failed_with_429 <= server.answer_after + 1.7


class TalkThenSilentApiServer:
    """The first watch sends `events` bookmarks `every` seconds, then nothing (a dead
    connection); later watches stay open and silent."""

    def __init__(self, events: int, every: float) -> None:
        self.events, self.every = events, every
        self.watches = 0
        self.watched_again = anyio.Event()
        self.availability = ApiAvailability(self.readyz, FakeClock(start=0.0))

    async def readyz(self) -> bool:
        return True

    @contextlib.asynccontextmanager
    async def watch(self, *args: Any, **kwargs: Any) -> AsyncIterator[AsyncIterator[WatchEvent]]:
        self.watches += 1
        if self.watches > 1:
            self.watched_again.set()
        yield self.talk() if self.watches == 1 else self.silence()

    async def talk(self) -> AsyncIterator[WatchEvent]:
        for version in range(1, self.events + 1):
            await anyio.sleep(self.every)
            yield WatchEvent("BOOKMARK", {"metadata": {"resourceVersion": str(version)}})
        await anyio.sleep_forever()

    async def silence(self) -> AsyncIterator[WatchEvent]:
        await anyio.sleep_forever()
        yield WatchEvent("BOOKMARK", {})  # pragma: no cover


async def test_a_watch_that_keeps_talking_stays_and_one_gone_silent_is_watched_again() -> None:
    # Bookmarks for three inactivity timeouts in a row, then silence: only the silence ends it.
    server = TalkThenSilentApiServer(events=30, every=0.05)
    reflector = Reflector(
        server,  # type: ignore[arg-type]
        CONFIG_MAP,
        "ns",
        Sink(),
        clock=FakeClock(start=0.0),
        inactivity_timeout=0.5,
    )
    reflector.resource_version = "0"
    async with anyio.create_task_group() as tg:
        tg.start_soon(reflector.run)
        with anyio.fail_after(30):
            await server.watched_again.wait()
        tg.cancel_scope.cancel()
    assert reflector.resource_version == "30", "every bookmark of the first watch was taken"
