"""Connection limits of the aiohttp servers, through real sockets: silent, dribbling and idle
clients are cut off, a full server refuses more, and everyone else keeps being served.

Deadlines are short here; `fail_after` only guards against a hang, nothing asserts durations.
"""

from __future__ import annotations

import contextlib
import gc
import weakref
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import anyio
import pytest
from aiohttp import web
from anyio.abc import SocketStream

from manager.runtime.http_server import AppServer, ConnectionLimits

pytestmark = pytest.mark.anyio

REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
HANG_GUARD = 20  # seconds; only there to fail instead of hanging


def app() -> web.Application:
    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hello")

    async def slow(request: web.Request) -> web.Response:
        await anyio.sleep(1.0)  # longer than the deadlines below: a request is never cut
        return web.Response(text="slow")

    application = web.Application()
    application.router.add_get("/", hello)
    application.router.add_get("/slow", slow)
    return application


async def serve(limits: ConnectionLimits) -> AsyncIterator[AppServer]:
    server = AppServer(app(), host="127.0.0.1", port=0, limits=limits)
    async with anyio.create_task_group() as task_group:
        await task_group.start(server.run)
        yield server
        task_group.cancel_scope.cancel()


@pytest.fixture
async def server() -> AsyncIterator[AppServer]:
    limits = ConnectionLimits(max_connections=3, header_timeout=0.3, keepalive_timeout=0.6)
    async for running in serve(limits):
        yield running


async def get(server: AppServer, path: str = "/") -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{server.port}{path}") as response,
    ):
        return response.status, await response.text()


async def until_closed(stream: SocketStream) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    with anyio.fail_after(HANG_GUARD):
        while True:
            try:
                received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return received


async def test_a_silent_connection_is_closed_while_others_are_served(server: AppServer) -> None:
    silent = await anyio.connect_tcp("127.0.0.1", server.port)

    assert await get(server) == (200, "hello")
    assert await until_closed(silent) == b""


async def test_a_client_dribbling_its_request_head_is_cut_off(server: AppServer) -> None:
    stream = await anyio.connect_tcp("127.0.0.1", server.port)

    async def dribble() -> None:
        await stream.send(b"GET / HTTP/1.1\r\nX-Slow: ")
        try:
            while True:  # one byte at a time, forever: only the deadline ends it
                await stream.send(b"a")
                await anyio.sleep(0.05)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            return

    async with anyio.create_task_group() as task_group:
        task_group.start_soon(dribble)
        assert await until_closed(stream) == b""
        assert await get(server) == (200, "hello")
        task_group.cancel_scope.cancel()


async def test_an_idle_keep_alive_connection_is_closed(server: AppServer) -> None:
    stream = await anyio.connect_tcp("127.0.0.1", server.port)
    await stream.send(REQUEST)

    answer = await until_closed(stream)

    assert answer.startswith(b"HTTP/1.1 200 OK")  # served, then closed once idle
    assert answer.endswith(b"hello")


async def test_a_request_in_progress_is_never_cut_by_the_deadlines(server: AppServer) -> None:
    assert await get(server, "/slow") == (200, "slow")


async def test_a_request_that_outlives_its_client_leaves_nothing_of_its_connection() -> None:
    """The client left while its request was served: once the handler returns, nothing holds
    the connection (a keep-alive timer armed then held it, its handler and its buffers, until
    `keepalive_timeout`: two minutes of a webhook server's memory per such client)."""
    connections: list[weakref.ref[Any]] = []
    answered = anyio.Event()

    async def outlived(request: web.Request) -> web.Response:
        assert request.transport is not None
        connections.append(weakref.ref(request.transport.get_protocol()))
        await anyio.sleep(0.3)  # the client leaves meanwhile
        answered.set()
        return web.Response(text="to nobody")

    application = web.Application()
    application.router.add_get("/", outlived)
    server = AppServer(application, host="127.0.0.1", port=0, limits=ConnectionLimits())
    async with anyio.create_task_group() as task_group:
        await task_group.start(server.run)
        stream = await anyio.connect_tcp("127.0.0.1", server.port)
        await stream.send(REQUEST)
        with anyio.fail_after(HANG_GUARD):
            while not connections:  # noqa: ASYNC110 - polled
                await anyio.sleep(0.01)
            await stream.aclose()
            await answered.wait()
        await anyio.sleep(0.1)  # the handler's return reaches the connection
        gc.collect()
        assert connections[0]() is None
        task_group.cancel_scope.cancel()


async def test_connections_beyond_the_limit_are_refused_and_the_rest_still_served() -> None:
    limits = ConnectionLimits(max_connections=2, header_timeout=30, keepalive_timeout=30)
    async for server in serve(limits):
        held = [await anyio.connect_tcp("127.0.0.1", server.port) for _ in range(2)]
        for stream in held:  # a response proves the connection was admitted
            await stream.send(REQUEST)
            assert (await stream.receive()).startswith(b"HTTP/1.1 200 OK")

        refused = await anyio.connect_tcp("127.0.0.1", server.port)
        with contextlib.suppress(anyio.BrokenResourceError, OSError):  # it may be closed already
            await refused.send(REQUEST)
        assert await until_closed(refused) == b""

        await held[0].aclose()
        with anyio.fail_after(HANG_GUARD):
            while True:  # the server notices the close asynchronously
                try:
                    assert await get(server) == (200, "hello")
                    break
                except aiohttp.ClientConnectionError:
                    await anyio.sleep(0.05)
        await held[1].send(REQUEST)
        assert (await held[1].receive()).startswith(b"HTTP/1.1 200 OK")
