"""An aiohttp transport that reuses kr8s's credentials.

kr8s still loads the kubeconfig or service account (server URL, CA, client certificate, token,
exec plugins); this transport only moves the bytes. On one event loop, httpx serves a small GET
from a loopback server five to ten times slower than aiohttp (about 1 100 against 5 300 requests
a second one at a time, 600 against 7 400 with 32 in flight; see encode/httpx#3215), and the
cache's initial list and the reconcilers' writes are exactly that workload.
`bench/informer_sync.py` compares the two transports on an informer's initial list.
"""

from __future__ import annotations

import contextlib
import os
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import anyio

from manager.runtime.client.errors import TransportError
from manager.runtime.client.transport import HttpResponse, StreamResponse, default_user_agent

__all__ = ["AiohttpTransport"]

MAX_REQUESTS_IN_FLIGHT = 32
"""Requests (not watches) sent at once; more wait for one to end. HTTP/1.1 needs a connection
per request in flight, and each TLS connection costs about 150 KiB (asyncio's 128 KiB read
buffer and OpenSSL's); without a bound, a burst of applies (8 workers, 8 children each) kept
over a hundred connections open (`bench.converge` at N = 500: 126 TLS read buffers alive).
client-go gets by with one HTTP/2 connection and 20 requests a second by default."""


class AiohttpTransport:
    """Requests over one aiohttp session per event loop, authenticated like the kr8s `api`."""

    def __init__(
        self,
        api: Any,
        *,
        user_agent: str | None = None,
        max_requests_in_flight: int = MAX_REQUESTS_IN_FLIGHT,
    ) -> None:
        self._api = api
        self.user_agent = user_agent or default_user_agent()
        self._in_flight = anyio.CapacityLimiter(max_requests_in_flight)
        self._session: aiohttp.ClientSession | None = None
        self._session_lock = anyio.Lock()
        self._retired: list[aiohttp.ClientSession] = []

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
        headers = {"Content-Type": content_type} if content_type else None
        for attempt in range(2):
            session = await self._get_session()
            try:
                async with (
                    self._in_flight,
                    session.request(
                        method,
                        self._url(path),
                        params=params,
                        data=body,
                        headers=headers,
                        timeout=aiohttp.ClientTimeout(total=request_timeout),
                        server_hostname=self._tls_server_name,
                    ) as response,
                ):
                    result = HttpResponse(response.status, await response.read(), response.headers)
            except (aiohttp.ClientError, TimeoutError, OSError) as error:
                raise TransportError(f"{method} {path}: {_describe(error)}") from error
            if result.status == 401 and attempt == 0:
                await self._reauthenticate(session)
                continue
            return result
        raise AssertionError("unreachable")

    @contextlib.asynccontextmanager
    async def stream(
        self, path: str, *, params: Mapping[str, str], connect_timeout: float = 10.0
    ) -> AsyncIterator[StreamResponse]:
        session = await self._get_session()
        timeout = aiohttp.ClientTimeout(total=None, connect=connect_timeout)
        try:
            async with session.get(
                self._url(path),
                params=params,
                timeout=timeout,
                server_hostname=self._tls_server_name,
            ) as response:
                if response.status == 401:
                    await self._reauthenticate(session)
                yield StreamResponse(response.status, response.headers, _chunks(response))
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            raise TransportError(f"watch {path}: {_describe(error)}") from error

    @property
    def _tls_server_name(self) -> str | None:
        name = getattr(self._api.auth, "tls_server_name", None)
        return str(name) if name else None

    def _url(self, path: str) -> str:
        return f"{str(self._api.auth.server).rstrip('/')}{path}"

    async def aclose(self) -> None:
        for session in [*self._retired, self._session]:
            if session is not None:
                await session.close()
        self._retired.clear()
        self._session = None

    async def _get_session(self) -> aiohttp.ClientSession:
        if self._session is not None and not self._session.closed:
            return self._session
        async with self._session_lock:
            if self._session is None or self._session.closed:
                self._session = await self._new_session()
        return self._session

    async def _new_session(self) -> aiohttp.ClientSession:
        auth = self._api.auth
        verify = await auth.ssl_context()
        ssl_option: ssl.SSLContext | bool = verify if isinstance(verify, ssl.SSLContext) else True
        headers = {"User-Agent": self.user_agent, "Accept": "application/json"}
        if auth.token:
            headers["Authorization"] = f"Bearer {auth.token}"
        # No pool limit: every watch pins a connection for minutes and must never wait on writes.
        connector = aiohttp.TCPConnector(ssl=ssl_option, limit=0)
        return aiohttp.ClientSession(headers=headers, connector=connector)

    async def _reauthenticate(self, stale: aiohttp.ClientSession) -> None:
        async with self._session_lock:
            if self._session is stale:
                await self._api.auth.reauthenticate()
                self._session = await self._new_session()
                # Watches still streaming on the stale session keep it until they end; it is
                # closed with the transport.
                self._retired.append(stale)


async def _chunks(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    try:
        async for chunk in response.content.iter_any():
            yield chunk
    except (aiohttp.ClientError, OSError) as error:
        raise TransportError(f"stream broken: {_describe(error)}") from error


def _describe(error: BaseException) -> str:
    """One line for the log: aiohttp's reprs spell out the whole connection key, down to the
    address of an SSL context, around the one fact that matters."""
    if isinstance(error, aiohttp.ClientConnectorError):
        cause = error.os_error
        reason = os.strerror(cause.errno) if cause.errno else str(cause)
        return f"cannot connect to {error.host}:{error.port}: {reason.lower()}"
    if isinstance(error, TimeoutError):
        return "no answer in time"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
