"""Polling for end-to-end tests: Kubernetes is eventually consistent, so tests wait for a state.

Timeouts are generous upper bounds for a loaded 2-core machine (the garbage collector alone may
take 30 s to notice a new kind); tests never assert how long anything took.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

DEFAULT_TIMEOUT = 90.0


def wait_for(
    description: str | Callable[[], str],
    probe: Callable[[], T | None],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    interval: float = 0.2,
) -> T:
    """Call ``probe`` until it returns something truthy, and return that.

    On timeout, raise ``TimeoutError`` naming ``description`` and the last value seen, so a failing
    test says what it was waiting for. A callable ``description`` is called then, so it can report
    the state at the timeout (logs, statuses) rather than at the start of the wait.
    """
    deadline = time.monotonic() + timeout
    last: T | None = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(interval)
    text = description() if callable(description) else description
    raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {text}; last: {last!r}")
