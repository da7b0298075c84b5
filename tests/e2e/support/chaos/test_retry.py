"""A chaos writer retries what a fault fails, and gives up naming what it was doing."""

from __future__ import annotations

import pytest

from e2e.support.chaos.retry import retrying
from manager.runtime.client import NotFound, TransportError

pytestmark = pytest.mark.anyio


async def test_a_write_failing_while_the_api_server_restarts_is_retried_until_it_passes() -> None:
    failures = [TransportError("connection refused"), TransportError("connection reset")]
    seen: list[Exception] = []

    async def write() -> str:
        if failures:
            raise failures.pop(0)
        return "written"

    assert await retrying("create graph g", write, within=30, on_error=seen.append) == "written"
    assert [str(error) for error in seen] == ["connection refused", "connection reset"]


async def test_a_write_still_failing_after_the_deadline_names_what_it_was() -> None:
    async def write() -> None:
        raise TransportError("connection refused")

    with pytest.raises(TimeoutError, match="create graph g: still failing: connection refused"):
        await retrying("create graph g", write, within=0)


async def test_an_error_no_fault_explains_is_not_retried() -> None:
    calls = 0

    async def write() -> None:
        nonlocal calls
        calls += 1
        raise NotFound(404, "NotFound", "graph g", {})

    with pytest.raises(NotFound):
        await retrying("edit graph g", write, within=30)
    assert calls == 1
