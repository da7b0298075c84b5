import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import pytest
from aiohttp import web

from manager.runtime.client.aiohttp_transport import AiohttpTransport
from manager.runtime.client.errors import TransportError
from manager.runtime.client.transport import default_user_agent

pytestmark = pytest.mark.anyio


class Auth:
    """What the transport reads of a kr8s `Api`'s credentials."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.token = "secret-token"

    async def ssl_context(self) -> None:
        return None


class Api:
    def __init__(self, server: str) -> None:
        self.auth = Auth(server)


@contextlib.asynccontextmanager
async def serving(
    handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
) -> AsyncIterator[str]:
    """A plain HTTP server on loopback answering every path with `handler`: its URL."""
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, list[dict[str, str]]]]:
    """A plain HTTP server recording the headers of every request it gets."""
    seen: list[dict[str, str]] = []

    async def record(request: web.Request) -> web.Response:
        seen.append(dict(request.headers))
        return web.json_response({})

    async with serving(record) as url:
        yield url, seen


async def test_requests_and_watches_carry_the_given_user_agent(
    server: tuple[str, list[dict[str, Any]]],
) -> None:
    url, seen = server
    transport = AiohttpTransport(Api(url), user_agent="my-operator/1.2.3 (linux/amd64)")
    try:
        await transport.request("GET", "/api/v1/namespaces")
        async with transport.stream("/api/v1/configmaps", params={"watch": "true"}) as response:
            await response.read()
    finally:
        await transport.aclose()

    assert [h["User-Agent"] for h in seen] == ["my-operator/1.2.3 (linux/amd64)"] * 2
    assert seen[0]["Authorization"] == "Bearer secret-token"


async def test_without_a_user_agent_the_program_is_named_not_a_product() -> None:
    transport = AiohttpTransport(Api("http://127.0.0.1:1"))

    assert transport.user_agent == default_user_agent()
    assert "dynamo" not in transport.user_agent
    assert " python/" in transport.user_agent


async def test_requests_in_flight_are_bounded_and_watches_do_not_count() -> None:
    """Each request in flight holds a TLS connection (about 150 KiB); a burst must not open one
    per write. A watch streaming for minutes must never wait behind them, nor block them."""
    in_flight, most = 0, 0
    release = anyio.Event()

    async def slow(request: web.Request) -> web.StreamResponse:
        nonlocal in_flight, most
        if request.query.get("watch"):
            response = web.StreamResponse()
            await response.prepare(request)
            await release.wait()
            return response
        in_flight += 1
        most = max(most, in_flight)
        await anyio.sleep(0.05)
        in_flight -= 1
        return web.json_response({})

    async with serving(slow) as url:
        transport = AiohttpTransport(Api(url), max_requests_in_flight=4)
        try:
            async with anyio.create_task_group() as group:
                for index in range(3):  # watches that stream until the requests are done
                    group.start_soon(_watch, transport, f"/watch-{index}")
                await anyio.sleep(0.1)
                async with anyio.create_task_group() as requests:
                    for index in range(20):
                        requests.start_soon(transport.request, "GET", f"/object-{index}")
                release.set()
        finally:
            await transport.aclose()

    assert most == 4


async def _watch(transport: AiohttpTransport, path: str) -> None:
    async with transport.stream(path, params={"watch": "true"}) as response:
        await response.read()


async def test_a_refused_connection_is_one_readable_line() -> None:
    async def answer(request: web.Request) -> web.Response:
        return web.json_response({})

    async with serving(answer) as url:
        pass  # the port is free again: nothing listens there now
    transport = AiohttpTransport(Api(url))
    try:
        with pytest.raises(TransportError) as refused:
            await transport.request("PATCH", "/api/v1/namespaces/ns/configmaps/a")
    finally:
        await transport.aclose()
    port = url.rsplit(":", 1)[1]
    assert str(refused.value) == (
        f"PATCH /api/v1/namespaces/ns/configmaps/a: cannot connect to 127.0.0.1:{port}: "
        "connection refused"
    )
