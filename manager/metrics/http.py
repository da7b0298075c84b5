"""An aiohttp application served as a manager runnable (used for metrics and health probes).

`AppRunner` + `TCPSite` embed the server in the running event loop, which `web.run_app` cannot.
The server reports ready through `task_status` once the socket listens, and serves until
cancelled; port 0 picks a free port, readable from `port` afterwards (tests use that).
"""

from __future__ import annotations

import anyio
from aiohttp import web
from anyio.abc import TaskStatus

__all__ = ["AppServer"]


class AppServer:
    """Serve `app` on `host:port` until cancelled; never needs leader election."""

    needs_leader_election = False

    def __init__(self, app: web.Application, *, host: str = "0.0.0.0", port: int) -> None:
        self.app = app
        self.host = host
        self.port = port

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
            self.port = runner.addresses[0][1]
            task_status.started()
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                await runner.cleanup()
