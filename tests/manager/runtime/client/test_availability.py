import contextlib
from collections.abc import AsyncIterator, Mapping

import anyio
import pytest

from manager.runtime.client.availability import ApiAvailability
from manager.runtime.client.errors import TransportError
from manager.runtime.client.rest import RestClient
from manager.runtime.client.transport import HttpResponse, StreamResponse
from manager.runtime.clock import FakeClock
from manager.runtime.kinds import CONFIG_MAP

pytestmark = pytest.mark.anyio


class Probe:
    """A `/readyz` that answers as the test says; records when it was asked."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.ready = False
        self.asked_at: list[float] = []

    async def __call__(self) -> bool:
        self.asked_at.append(self.clock.now())
        return self.ready


@contextlib.asynccontextmanager
async def watched(clock: FakeClock) -> AsyncIterator[tuple[ApiAvailability, Probe]]:
    probe = Probe(clock)
    availability = ApiAvailability(probe, clock)
    async with anyio.create_task_group() as tg:
        await tg.start(availability.run)
        yield availability, probe
        tg.cancel_scope.cancel()


async def test_an_unanswered_request_starts_probes_once_a_second_until_ready() -> None:
    clock = FakeClock(start=0.0)
    async with watched(clock) as (availability, probe):
        await clock.settle(10)
        assert probe.asked_at == [], "no probe while the API server answers"

        availability.lost()
        assert not availability.available
        for _ in range(3):
            await clock.settle(1)
        assert probe.asked_at == [11.0, 12.0, 13.0]

        probe.ready = True
        await clock.settle(1)
        assert availability.available
        await clock.settle(60)
        assert probe.asked_at == [11.0, 12.0, 13.0, 14.0], "no probe once it is back"


async def test_waiters_wake_when_the_api_server_is_ready_again() -> None:
    clock = FakeClock(start=0.0)
    woken: list[float] = []
    async with watched(clock) as (availability, probe):
        availability.lost()

        async def waiter() -> None:
            await availability.wait_back()
            woken.append(clock.now())

        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter)
            await clock.settle(1)
            await clock.settle(1)
            assert woken == []
            probe.ready = True
            await clock.settle(1)
        assert woken == [3.0]


async def sleep_30_s(
    availability: ApiAvailability, clock: FakeClock, ended: list[tuple[float, bool]]
) -> None:
    """Sleep until 30 s; note when the sleep ended and whether the API server's return ended it."""
    returned = await availability.sleep_until(clock, 30.0)
    ended.append((clock.now(), returned))


async def test_a_sleep_begun_while_the_api_server_is_away_ends_when_it_is_back() -> None:
    clock = FakeClock(start=0.0)
    async with watched(clock) as (availability, probe):
        availability.lost()
        probe.ready = True
        ended: list[tuple[float, bool]] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(sleep_30_s, availability, clock, ended)
            await clock.settle(1)
        assert ended == [(1.0, True)], "the 30 s backoff ends at the first ready probe"


async def test_a_sleep_begun_while_the_api_server_answers_runs_its_course() -> None:
    clock = FakeClock(start=0.0)
    async with watched(clock) as (availability, probe):
        probe.ready = True
        ended: list[tuple[float, bool]] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(sleep_30_s, availability, clock, ended)
            await clock.settle()
            availability.lost()  # an outage and its end during the sleep change nothing
            await clock.settle(1)
            assert availability.available
            for _ in range(29):
                await clock.settle(1)
        assert ended == [(30.0, False)]


async def test_outages_in_a_row_slow_the_probes_so_a_flapping_server_wakes_waiters_rarely() -> None:
    clock = FakeClock(start=0.0)
    async with watched(clock) as (availability, probe):
        probe.ready = True
        returns: list[float] = []
        for _ in range(7):
            availability.lost()
            lost_at = clock.now()
            while not availability.available:
                await clock.settle(0.5)
            returns.append(clock.now() - lost_at)
        assert returns == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]

        await clock.settle(121)  # two quiet minutes: a new outage is a first one again
        availability.lost()
        await clock.settle(1)
        assert availability.available


class FakeTransport:
    """Answers `/readyz` with `readyz`; every other request with `answer` or no answer."""

    server = "https://127.0.0.1:6443"

    def __init__(self) -> None:
        self.readyz: int | None = 200
        self.answer: int | None = 200

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
        request_timeout: float = 30.0,
    ) -> HttpResponse:
        status = self.readyz if path == "/readyz" else self.answer
        if status is None:
            raise TransportError(f"{method} {path}: connection refused")
        return HttpResponse(status, b"{}", {})

    def stream(
        self, path: str, *, params: Mapping[str, str], connect_timeout: float = 10.0
    ) -> contextlib.AbstractAsyncContextManager[StreamResponse]:
        raise TransportError(f"watch {path}: connection refused")

    async def aclose(self) -> None:
        pass


async def test_the_rest_client_marks_the_server_away_on_no_answer_and_asks_readyz() -> None:
    transport = FakeTransport()
    rest = RestClient(transport)

    transport.answer = 503  # an answer, even an error, is not an outage
    with pytest.raises(Exception, match="503"):
        await rest.get(CONFIG_MAP, "ns", "a")
    assert rest.availability.available

    transport.answer = None
    with pytest.raises(TransportError):
        await rest.get(CONFIG_MAP, "ns", "a")
    assert not rest.availability.available

    for readyz, ready in ((None, False), (500, False), (403, False), (200, True)):
        transport.readyz = readyz
        assert await rest.is_ready() is ready


async def test_a_watch_that_cannot_open_marks_the_server_away() -> None:
    rest = RestClient(FakeTransport())
    with pytest.raises(TransportError):
        async with rest.watch(CONFIG_MAP, "ns", resource_version="1", timeout_seconds=60):
            pass
    assert not rest.availability.available
