"""An aiohttp application served as a manager runnable: metrics, health probes, admission webhooks.

`AppRunner` + `TCPSite` embed the server in the running event loop, which `web.run_app` cannot.
The server reports ready through `task_status` once the socket listens, and serves until
cancelled; port 0 picks a free port, readable from `port` afterwards (tests use that). With an
`ssl_context` it serves HTTPS; the context stays live, so loading a new certificate into it changes
what the next handshake presents (the webhooks rotate their certificate that way).
"""

from __future__ import annotations

import ssl

import anyio
from aiohttp import web
from anyio.abc import TaskStatus

__all__ = ["DEFAULT_SHUTDOWN_TIMEOUT", "AppServer"]

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
    ) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.ssl_context = ssl_context
        self.shutdown_timeout = shutdown_timeout
        self._listening = False

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
        )
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port, ssl_context=self.ssl_context)
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
