"""Writes retried while the chaos lands: an API server restarting, a webhook down with
failurePolicy Fail, a conflict. Every writer of the chaos (the user, the webhook outages) goes
through `retrying`."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

from manager.runtime.client import Conflict, ServerError, TooManyRequests, TransportError

T = TypeVar("T")
RETRIED = (TransportError, ServerError, TooManyRequests, Conflict, OSError)
"""What a fault makes a request fail with for a while."""


async def retrying(
    description: str,
    call: Callable[[], Awaitable[T]],
    *,
    within: float,
    on_error: Callable[[Exception], None] | None = None,
) -> T:
    """`call()` until it succeeds, at most `within` seconds, a second apart; `TimeoutError`
    naming `description` and the last error after that."""
    deadline = time.monotonic() + within
    while True:
        try:
            return await call()
        except RETRIED as error:
            if on_error is not None:
                on_error(error)
            if time.monotonic() > deadline:
                raise TimeoutError(f"{description}: still failing: {error}") from error
            await anyio.sleep(1.0)
