"""The aiohttp runnable: bound port, listening state, bounded shutdown (TLS: tests/webhooks)."""

import aiohttp
import anyio
import pytest
from aiohttp import web

from manager.runtime.http_server import AppServer

pytestmark = pytest.mark.anyio


@pytest.fixture
def handler_started() -> anyio.Event:
    return anyio.Event()


@pytest.fixture
def app(handler_started: anyio.Event) -> web.Application:
    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hello")

    async def hang(request: web.Request) -> web.Response:
        handler_started.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    application = web.Application()
    application.router.add_get("/", hello)
    application.router.add_get("/hang", hang)
    return application


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def test_port_zero_binds_a_free_port_readable_once_started(app: web.Application) -> None:
    server = AppServer(app, host="127.0.0.1", port=0)
    assert not server.listening
    async with anyio.create_task_group() as task_group:
        await task_group.start(server.run)
        assert server.listening
        assert server.port != 0
        assert await get(f"http://127.0.0.1:{server.port}/") == (200, "hello")
        task_group.cancel_scope.cancel()

    assert not server.listening
    with pytest.raises(aiohttp.ClientConnectionError):
        await get(f"http://127.0.0.1:{server.port}/")


async def test_cancellation_waits_for_in_flight_requests_at_most_the_shutdown_timeout(
    app: web.Application, handler_started: anyio.Event
) -> None:
    server = AppServer(app, host="127.0.0.1", port=0, shutdown_timeout=0.2)

    async def request_that_hangs() -> None:
        with pytest.raises(aiohttp.ClientError):
            await get(f"http://127.0.0.1:{server.port}/hang")

    with anyio.fail_after(10):
        async with anyio.create_task_group() as clients:
            async with anyio.create_task_group() as task_group:
                await task_group.start(server.run)
                clients.start_soon(request_that_hangs)
                await handler_started.wait()
                started = anyio.current_time()
                task_group.cancel_scope.cancel()
            assert anyio.current_time() - started < 5  # aiohttp's default would wait 60 s
