"""The workers client against small servers on the loopback: what it sends, and how each kind of
bad worker (error status, garbage, closed connection, no answer) becomes a failed outcome."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import pytest

from dynamo_operator.model_endpoints import WorkerEndpoint
from manager.app.reconcilers.model import LORA_REQUESTS, HttpLoraWorkers

pytestmark = pytest.mark.anyio

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def read_request(reader: asyncio.StreamReader) -> tuple[str, Any]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode()
    lines = head.split("\r\n")
    length = next(
        (int(line.split(":")[1]) for line in lines if line.lower().startswith("content-length")), 0
    )
    body = await reader.readexactly(length)
    return lines[0], json.loads(body) if body else None


async def answer(writer: asyncio.StreamWriter, status: str, body: bytes = b"") -> None:
    writer.write(f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    await writer.drain()
    writer.close()


@pytest.fixture
async def workers() -> AsyncIterator[HttpLoraWorkers]:
    client = HttpLoraWorkers(request_timeout=0.5)
    async with anyio.create_task_group() as group:
        await group.start(client.run)
        yield client
        group.cancel_scope.cancel()


async def serve(handler: Handler) -> tuple[asyncio.Server, WorkerEndpoint]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, WorkerEndpoint(f"http://127.0.0.1:{port}", "pod")


def count(operation: str, result: str) -> float:
    return LORA_REQUESTS.labels(operation, result)._value.get()


async def test_load_posts_the_adapter_and_unload_deletes_it_by_name(
    workers: HttpLoraWorkers,
) -> None:
    seen: list[tuple[str, Any]] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        await answer(writer, "200 OK", b'{"status": "success"}')

    server, endpoint = await serve(handler)
    before = count("load", "success"), count("unload", "success")
    async with server:
        loaded = await workers.load(endpoint, "team/math", "s3://b/math")
        unloaded = await workers.unload(endpoint, "team/math")

    assert (loaded.ok, unloaded.ok) == (True, True)
    assert seen == [
        ("POST /v1/loras HTTP/1.1", {"lora_name": "team/math", "source": {"uri": "s3://b/math"}}),
        ("DELETE /v1/loras/team%2Fmath HTTP/1.1", None),
    ]
    assert (count("load", "success"), count("unload", "success")) == (before[0] + 1, before[1] + 1)


async def bad_worker(kind: str) -> Handler:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        if kind == "error":
            await answer(writer, "500 Internal Server Error", b"engine not ready")
        elif kind == "redirect":
            writer.write(
                b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /v1/elsewhere\r\n"
                b"Content-Length: 0\r\n\r\n"
            )
            await writer.drain()
            writer.close()
        elif kind == "garbage":
            writer.write(b"\x00\x01 not HTTP \xff\r\n\r\n")
            await writer.drain()
            writer.close()
        elif kind == "close":
            writer.close()
        else:  # hang
            await asyncio.sleep(30)

    return handler


@pytest.mark.parametrize(
    ("kind", "result", "message"),
    [
        ("error", "http_error", "HTTP 500: engine not ready"),
        ("redirect", "http_error", "HTTP 307"),
        ("garbage", "invalid_response", "invalid response"),
        ("close", "connection_error", "connection failed"),
        ("hang", "timeout", "no answer within 0.5s"),
    ],
)
async def test_a_bad_worker_is_a_failed_outcome(
    workers: HttpLoraWorkers, kind: str, result: str, message: str
) -> None:
    server, endpoint = await serve(await bad_worker(kind))
    before = count("load", result)
    async with server:
        with anyio.fail_after(5):
            outcome = await workers.load(endpoint, "math", "s3://b/math")

    assert (outcome.ok, outcome.result) == (False, result)
    assert outcome.message is not None
    assert outcome.message.startswith(message)
    assert count("load", result) == before + 1


async def test_nobody_listening_is_a_connection_error(workers: HttpLoraWorkers) -> None:
    server, endpoint = await serve(await bad_worker("close"))
    server.close()
    await server.wait_closed()

    outcome = await workers.unload(endpoint, "math")

    assert (outcome.ok, outcome.result) == (False, "connection_error")


async def test_calls_before_the_client_runs_are_a_bug() -> None:
    with pytest.raises(RuntimeError, match="not running"):
        await HttpLoraWorkers().load(WorkerEndpoint("http://127.0.0.1:1", "p"), "m", "s3://b")
