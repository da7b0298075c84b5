"""HTTP transports under the REST layer: raw bytes in, raw bytes out, credentials from kr8s.

Two implementations of one `Transport` protocol:
- `Kr8sTransport` sends through kr8s's `call_api` (its shared httpx client).
- `AiohttpTransport` (in `aiohttp_transport.py`) reuses kr8s's credentials (server URL, TLS
  context with the client certificate, bearer token) on an aiohttp session; `bench/informer_sync.py`
  measures both.

Both send the User-Agent they are given (the composition root passes its `Identity.user_agent`);
without one, `default_user_agent()` names the running program, as client-go does with `os.Args[0]`.

Neither raises for an HTTP error status: the REST layer maps statuses to `errors.ApiError`. Both
raise `errors.TransportError` when no answer arrives. Neither lets kr8s recreate its session on
403: kr8s does that on any 401/403, which would cut every open watch whenever RBAC says no; we
re-authenticate on 401 only.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
from kr8s import APITimeoutError

from manager.runtime.client.errors import TransportError

__all__ = [
    "HttpResponse",
    "Kr8sTransport",
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


def _split_path(path: str) -> tuple[str, str]:
    # kr8s joins `base` and `url` with "/" and would add a trailing slash to a lone base.
    base, _, leaf = path.rpartition("/")
    return base, leaf


class Kr8sTransport:
    """Requests through kr8s's own httpx client (`Api.call_api`)."""

    def __init__(self, api: Any, *, user_agent: str | None = None) -> None:
        self._api = api
        self.user_agent = user_agent or default_user_agent()

    @property
    def server(self) -> str:
        return str(self._api.auth.server)

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
        base, leaf = _split_path(path)
        headers = {"User-Agent": self.user_agent}
        if content_type:
            headers["Content-Type"] = content_type
        for attempt in range(2):
            try:
                async with self._api.call_api(
                    method,
                    version="",
                    base=base,
                    url=leaf,
                    raise_for_status=False,
                    params=params,
                    content=body,
                    headers=headers,
                    timeout=httpx.Timeout(request_timeout),
                ) as response:
                    result = HttpResponse(response.status_code, response.content, response.headers)
            except (httpx.TransportError, APITimeoutError, OSError) as error:
                raise TransportError(f"{method} {path}: {error!r}") from error
            if result.status == 401 and attempt == 0:
                await self._reauthenticate()
                continue
            return result
        raise AssertionError("unreachable")

    @contextlib.asynccontextmanager
    async def stream(
        self, path: str, *, params: Mapping[str, str], connect_timeout: float = 10.0
    ) -> AsyncIterator[StreamResponse]:
        base, leaf = _split_path(path)
        timeout = httpx.Timeout(connect_timeout, read=None)
        try:
            async with self._api.call_api(
                "GET",
                version="",
                base=base,
                url=leaf,
                raise_for_status=False,
                stream=True,
                params=params,
                headers={"User-Agent": self.user_agent},
                timeout=timeout,
            ) as response:
                yield StreamResponse(
                    response.status_code, response.headers, _httpx_chunks(response)
                )
        except (httpx.TransportError, APITimeoutError, OSError) as error:
            raise TransportError(f"watch {path}: {error!r}") from error

    async def _reauthenticate(self) -> None:
        await self._api.auth.reauthenticate()
        await self._api._create_session()  # kr8s bakes the token into its client's headers

    async def aclose(self) -> None:
        """The httpx client belongs to the kr8s `Api`; nothing of ours to close."""


async def _httpx_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except (httpx.TransportError, OSError) as error:
        raise TransportError(f"stream broken: {error!r}") from error
