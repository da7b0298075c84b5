"""The HTTP transport under the REST layer: raw bytes in, raw bytes out, credentials from kr8s.

`Transport` is the seam; `AiohttpTransport` (in `aiohttp_transport.py`) is the process's
implementation: kr8s's credentials (server URL, TLS context with the client certificate, bearer
token) on an aiohttp session. (`bench/kr8s_transport.py` implements it over kr8s's own httpx
client, for `bench/informer_sync.py` to compare the two.)

A transport sends the User-Agent it is given (the composition root passes its
`Identity.user_agent`); without one, `default_user_agent()` names the running program, as client-go
does with `os.Args[0]`. It never raises for an HTTP error status: the REST layer maps statuses to
`errors.ApiError`; it raises `errors.TransportError` when no answer arrives.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "HttpResponse",
    "StreamResponse",
    "Transport",
    "default_user_agent",
    "split_lines",
]


def default_user_agent() -> str:
    """`<program>/unknown (os/arch) python/x.y.z`: client-go's default shape, naming no product."""
    program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
    arch = platform.machine().lower() or "unknown"
    return (
        f"{program or 'python'}/unknown ({sys.platform}/{arch}) python/{platform.python_version()}"
    )


@dataclass(frozen=True, slots=True)
class HttpResponse:
    status: int
    body: bytes
    headers: Mapping[str, str]


@dataclass(slots=True)
class StreamResponse:
    """An open streaming response: `status` and `headers` now, the body as newline-split lines."""

    status: int
    headers: Mapping[str, str]
    chunks: AsyncIterator[bytes]

    async def read(self) -> bytes:
        return b"".join([chunk async for chunk in self.chunks])

    def lines(self) -> AsyncIterator[bytes]:
        return split_lines(self.chunks)


class Transport(Protocol):
    """Sends one request to the API server at `path` (which starts with `/api` or `/apis`)."""

    @property
    def server(self) -> str: ...

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
        request_timeout: float = 30.0,
    ) -> HttpResponse: ...

    def stream(
        self, path: str, *, params: Mapping[str, str], connect_timeout: float = 10.0
    ) -> contextlib.AbstractAsyncContextManager[StreamResponse]:
        """A GET whose body is read incrementally (watches); no read timeout of its own."""
        ...

    async def aclose(self) -> None: ...


async def split_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Newline-delimited records of a byte stream, of any length (watch events can be MiBs)."""
    pending = b""
    async for chunk in chunks:
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            if line.strip():
                yield line
    if pending.strip():
        yield pending
