"""An aiohttp application served as a manager runnable: metrics, health probes, admission webhooks.

`AppRunner` + a site embed the server in the running event loop, which `web.run_app` cannot.
The server reports ready through `task_status` once the socket listens, and serves until
cancelled; port 0 picks a free port, readable from `port` afterwards (tests use that). With an
`ssl_context` it serves HTTPS; the context stays live, so loading a new certificate into it changes
what the next handshake presents (the webhooks rotate their certificate that way).

aiohttp itself bounds neither how many connections a client may hold nor how slowly it may send a
request, and asyncio gives every TLS connection a 256 KiB buffer from the moment it is accepted:
8,000 idle connections took a webhook server from 82 MB to 2.5 GB. So connections go through
`GuardedSite` (`manager.runtime.http_connections`): at most `max_connections` at once (the rest are
closed on accept, before any TLS state exists), the TLS handshake and each request's head within
`header_timeout`, an idle connection closed after `keepalive_timeout`.
"""

from __future__ import annotations

import ssl

import anyio
from aiohttp import web
from anyio.abc import TaskStatus

from manager.runtime.http_connections import ConnectionLimits, GuardedSite, track_requests

__all__ = ["DEFAULT_SHUTDOWN_TIMEOUT", "AppServer", "ConnectionLimits"]

DEFAULT_SHUTDOWN_TIMEOUT = 60.0  # aiohttp's: how long cancellation waits for in-flight requests


class AppServer:
    """Serve `app` on `host:port` until cancelled; never needs leader election."""

    needs_leader_election = False

    def __init__(
        self,
        app: web.Application,
        *,
        host: str = "0.0.0.0",
        port: int,
        ssl_context: ssl.SSLContext | None = None,
        shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT,
        limits: ConnectionLimits | None = None,
    ) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.ssl_context = ssl_context
        self.shutdown_timeout = shutdown_timeout
        self.limits = limits or ConnectionLimits()
        self._listening = False
        if track_requests not in app.middlewares:
            app.middlewares.append(track_requests)

    @property
    def listening(self) -> bool:
        """True from the moment the socket listens until the server stops."""
        return self._listening

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        runner = web.AppRunner(
            self.app,
            access_log=None,
            handle_signals=False,
            shutdown_timeout=self.shutdown_timeout,
            # aiohttp closes idle keep-alive connections gracefully; the guard is the backstop.
            keepalive_timeout=self.limits.keepalive_timeout,
            # After answering a request whose body is not all read, aiohttp reads and drops the
            # rest for this long before closing (10 s by default): one more request head's worth.
            lingering_time=self.limits.header_timeout,
        )
        await runner.setup()
        try:
            site = GuardedSite(
                runner, self.host, self.port, ssl_context=self.ssl_context, limits=self.limits
            )
            await site.start()
            self.port = _bound_port(runner, self.port)
            self._listening = True
            task_status.started()
            await anyio.sleep_forever()
        finally:
            self._listening = False
            with anyio.CancelScope(shield=True):
                await runner.cleanup()


def _bound_port(runner: web.AppRunner, requested: int) -> int:
    # An IPv4 address is (host, port), an IPv6 one (host, port, flowinfo, scope_id).
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return requested
