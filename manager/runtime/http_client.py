"""One outbound aiohttp session as a manager runnable: opened before the controllers start,
closed (shielded from cancellation) after they stop, shared by every reconcile of a controller
that calls out of the cluster (workers' LoRA routes, image registries)."""

from __future__ import annotations

from collections.abc import Callable

import aiohttp
import anyio
from anyio.abc import TaskStatus

__all__ = ["ClientSessionRunnable"]


class ClientSessionRunnable:
    """Subclasses call out through ``session`` while the manager runs them."""

    needs_leader_election = False

    def __init__(self, *, connector: Callable[[], aiohttp.TCPConnector], user_agent: str) -> None:
        self._connector = connector
        self._user_agent = user_agent
        self._session: aiohttp.ClientSession | None = None

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            raise RuntimeError(f"{type(self).__name__} is not running (add it to the manager)")
        return self._session

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        session = aiohttp.ClientSession(
            connector=self._connector(), headers={"User-Agent": self._user_agent}
        )
        self._session = session
        try:
            task_status.started()
            await anyio.sleep_forever()
        finally:
            self._session = None
            with anyio.CancelScope(shield=True):
                await session.close()
