from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from e2e.support.chaos import webhook
from e2e.support.chaos.webhook import ChaosWebhook

pytestmark = pytest.mark.anyio


class PolicyOnlyApi:
    """What an outage asks of the API server: the configuration, read and patched."""

    async def get(self, *_: Any) -> dict[str, Any]:
        return {"webhooks": [{"name": "validate"}]}

    async def merge_patch(self, *_: Any, **__: Any) -> dict[str, Any]:
        return {}

    async def delete(self, *_: Any) -> bool:
        return True


async def test_outages_side_by_side_leave_no_server_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[subprocess.Popen[bytes]] = []

    def start_server(port: int, directory: Path) -> subprocess.Popen[bytes]:
        started.append(subprocess.Popen(["sleep", "60"]))
        return started[-1]

    monkeypatch.setattr(webhook, "start_webhook_server", start_server)
    chaos = ChaosWebhook(PolicyOnlyApi(), "run", tmp_path)  # type: ignore[arg-type]
    await chaos._serve()

    async with anyio.create_task_group() as outages:
        outages.start_soon(chaos.outage, "Fail", 0.2)
        outages.start_soon(chaos.outage, "Ignore", 0.2)
    await chaos.remove()

    assert chaos.outages == 2
    assert len(started) == 3, "the first server, then one after each outage"
    assert [process.poll() is None for process in started] == [False] * 3
