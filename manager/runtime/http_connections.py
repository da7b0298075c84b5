"""Connection limits and deadlines for `AppServer`: hostile or broken clients cannot pile up.

Each accepted connection is a `_Connection` wrapped around aiohttp's own protocol:

- it is refused (closed at once) when `max_connections` are already open, before TLS starts:
  a TLS connection gets a 256 KiB buffer (all of it resident on asyncio's own loop, the part used
  on uvloop's), so refusing after the handshake would be too late;
- TLS is negotiated here (`loop.start_tls`), and the handshake plus the head of the first request
  must arrive within `header_timeout`, so a client that connects and stays silent, or sends a byte
  per second, is cut off;
- between requests the connection may stay idle for `keepalive_timeout`; once the next request
  starts arriving, its head again has `header_timeout`.

Which phase a connection is in comes from `track_requests`, a middleware the server installs: a
request has been read (its head at least) when the handler is called, and the connection is idle
again when the handler returns. Reading a body is the handler's business (the webhooks bound it).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from aiohttp import web

__all__ = ["ConnectionLimits", "GuardedSite", "track_requests"]


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    max_connections: int = 512
    """Open connections at once; more are closed on accept."""
    header_timeout: float = 10.0
    """Seconds for the TLS handshake and a request's head (as Go servers' ReadHeaderTimeout)."""
    keepalive_timeout: float = 120.0
    """Seconds a connection may stay idle between requests. Longer than the 90 s after which Go
    clients (the API server) drop idle connections themselves, so that they close first and never
    send a request on a connection the server is closing."""


class GuardedSite(web.BaseSite):
    """A TCP site (optionally TLS) whose connections obey `ConnectionLimits`."""

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        *,
        ssl_context: ssl.SSLContext | None = None,
        limits: ConnectionLimits,
    ) -> None:
        super().__init__(runner, ssl_context=ssl_context)
        self._host = host
        self._port = port
        self.limits = limits
        self.connections: set[_Connection] = set()
        self.refused = 0
        """Connections closed on accept because `max_connections` were open."""

    @property
    def name(self) -> str:
        scheme = "https" if self._ssl_context else "http"
        return f"{scheme}://{self._host}:{self._port}"

    @property
    def tls(self) -> ssl.SSLContext | None:
        return self._ssl_context

    def handler(self) -> asyncio.Protocol:
        """A new aiohttp protocol for a connection that passed the guard."""
        server = self._runner.server
        assert server is not None, "the runner is set up before a site starts"
        return server()

    async def start(self) -> None:
        await super().start()
        _keep_large_buffers_in_their_own_mappings()
        loop = asyncio.get_running_loop()
        # No ssl= here: TLS starts per connection, after the limit is checked.
        self._server = await loop.create_server(
            lambda: _Connection(self), self._host, self._port, backlog=self._backlog
        )

    async def stop(self) -> None:
        await super().stop()
        # aiohttp shuts down the connections it knows; those still in their TLS handshake are ours.
        for connection in list(self.connections):
            connection.abort_if_not_handed_over()


class _Connection(asyncio.Protocol):
    def __init__(self, site: GuardedSite) -> None:
        self._site = site
        self._limits = site.limits
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._handler: asyncio.Protocol | None = None
        # What arrived before the handler took over: raw bytes before the TLS upgrade (uvloop),
        # replayed to the TLS layer, then what that layer decrypted before the hand-over.
        self._early: list[bytes] = []
        self._deadline: asyncio.TimerHandle | None = None
        self._upgrade: asyncio.Task[None] | None = None
        self._in_request = False
        self._idle = False
        self._finished = False

    # --- asyncio.Protocol --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport, though not always an `asyncio.Transport` (uvloop's are its own).
        transport = cast(asyncio.Transport, transport)
        if len(self._site.connections) >= self._limits.max_connections:
            self._site.refused += 1
            self._finished = True
            transport.abort()
            return
        self._site.connections.add(self)
        self._transport = transport
        self._arm(self._limits.header_timeout)
        context = self._site.tls
        if context is None:
            self._hand_over(transport)
        else:
            self._upgrade = self._loop.create_task(self._start_tls(transport, context))

    def data_received(self, data: bytes) -> None:
        if self._handler is None:
            self._early.append(data)
            return
        if self._idle:  # the next request has begun: its head gets header_timeout
            self._idle = False
            self._arm(self._limits.header_timeout)
        self._handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self._handler.eof_received() if self._handler is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        self._finish()
        if self._handler is not None:
            self._handler.connection_lost(exc)

    def pause_writing(self) -> None:
        if self._handler is not None:
            self._handler.pause_writing()

    def resume_writing(self) -> None:
        if self._handler is not None:
            self._handler.resume_writing()

    # --- phases ------------------------------------------------------------------------------

    def request_started(self) -> None:
        self._in_request, self._idle = True, False
        self._disarm()

    def request_finished(self) -> None:
        self._in_request, self._idle = False, True
        self._arm(self._limits.keepalive_timeout)

    def abort_if_not_handed_over(self) -> None:
        if self._handler is None and self._transport is not None:
            self._transport.abort()
            self._finish()

    # --- internals ---------------------------------------------------------------------------

    async def _start_tls(self, transport: asyncio.Transport, context: ssl.SSLContext) -> None:
        upgrade = asyncio.ensure_future(
            self._loop.start_tls(
                transport,
                self,
                context,
                server_side=True,
                ssl_handshake_timeout=self._limits.header_timeout,
            )
        )
        # After start_tls has begun (the step queued first) and queued its TLS layer's start and
        # the transport's next read: what the client sent before the upgrade goes to that layer
        # after the first and before the second.
        self._loop.call_soon(self._loop.call_soon, self._replay_to_tls, transport)
        try:
            tls = await upgrade
        except OSError as error:  # the handshake failed or timed out, or the client left
            # The traceback holds asyncio's start_tls frame, whose future holds the error: a
            # cycle that only the cyclic collector frees, and with it this connection's 256 KiB
            # TLS buffer. An idle server collects rarely, so memory would stay high after a flood.
            error.__traceback__ = None
            self._finish()
            return
        except asyncio.CancelledError:
            transport.abort()
            self._finish()
            raise
        if self._finished or tls is None:
            return
        self._hand_over(tls)

    def _replay_to_tls(self, transport: asyncio.Transport) -> None:
        """Give the TLS layer the bytes read before it took over: uvloop starts reading as soon
        as a connection is made (asyncio only once start_tls has run), so the ClientHello can be
        here, and without it the handshake would wait until the deadline."""
        early, self._early = self._early, []
        if self._finished or not early:
            return
        layer = cast(asyncio.BufferedProtocol, transport.get_protocol())  # both loops' TLS layers
        unread = memoryview(b"".join(early))
        while unread:
            buffer = memoryview(layer.get_buffer(len(unread)))
            size = min(len(buffer), len(unread))
            buffer[:size] = unread[:size]
            layer.buffer_updated(size)
            unread = unread[size:]

    def _hand_over(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        handler = self._site.handler()
        self._handler = handler
        handler.connection_made(transport)
        early, self._early = self._early, []
        for data in early:
            handler.data_received(data)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        # A request can end after its connection did (the client left while it was served):
        # a timer armed then would hold the closed connection, its handler and its TLS buffers
        # until it fired, keepalive_timeout later.
        if not self._finished:
            self._deadline = self._loop.call_later(seconds, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self._transport is not None and not self._in_request:
            self._transport.abort()

    def _finish(self) -> None:
        self._disarm()
        self._finished = True
        self._site.connections.discard(self)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def track_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Tell the request's connection when it starts and stops serving a request."""
    connection = _connection_of(request)
    if connection is not None:
        connection.request_started()
    try:
        return await handler(request)
    finally:
        if connection is not None:
            connection.request_finished()


def _connection_of(request: web.Request) -> _Connection | None:
    transport: Any = request.transport
    protocol = transport.get_protocol() if transport is not None else None
    return protocol if isinstance(protocol, _Connection) else None


_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number
_MMAP_THRESHOLD_BYTES = 128 * 1024  # glibc's initial value


def _keep_large_buffers_in_their_own_mappings() -> None:
    """Pin glibc's mmap threshold, so every 256 KiB TLS buffer is a mapping of its own, unmapped
    when its connection closes. Left dynamic, glibc raises the threshold as soon as one such
    buffer is freed; the next thousands then come from the heap, and after a flood of clients the
    heap stays fragmented and large (RSS stayed at 200 MB instead of returning to 80). A no-op
    where the C library is not glibc."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_BYTES)
    except (OSError, AttributeError, TypeError):
        pass
