"""The operator's processes run on uvloop's loop, which does the socket and TLS work in C."""

from __future__ import annotations

import asyncio

import uvloop

from manager.runtime import event_loop


def test_run_runs_the_coroutine_with_its_arguments_on_uvloop() -> None:
    async def loop_and_sum(*numbers: int) -> tuple[type[asyncio.AbstractEventLoop], int]:
        return type(asyncio.get_running_loop()), sum(numbers)

    assert event_loop.HAS_UVLOOP
    assert event_loop.run(loop_and_sum, 1, 2, 3) == (uvloop.Loop, 6)
