"""Waiting for the cluster to reach a state: the async twin of ``e2e.localcluster.wait_for``."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

T = TypeVar("T")

CONVERGE_TIMEOUT = 240.0
"""Upper bound for a graph to converge on a loaded 2-core machine; never asserted."""


async def eventually(
    description: str,
    probe: Callable[[], Awaitable[T | None]],
    *,
    within: float = CONVERGE_TIMEOUT,
    interval: float = 0.5,
) -> T:
    """Await `probe` until it returns something truthy, and return that; on timeout, fail
    naming what was awaited and the last value seen."""
    deadline = time.monotonic() + within
    last: T | None = None
    while time.monotonic() < deadline:
        last = await probe()
        if last:
            return last
        await anyio.sleep(interval)
    raise TimeoutError(f"timed out after {within:.0f}s waiting for {description}; last: {last!r}")
