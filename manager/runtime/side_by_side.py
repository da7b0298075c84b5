"""Run a few independent calls at once, and only pay for the task group when there are two.

A reconcile's writes (a Deployment and its Service, a discovery Role and its RoleBinding) are
independent round trips, so they run side by side. But most passes write nothing or one thing,
and an anyio task group with its tasks and limiter costs about 50 µs of CPU to enter and leave:
at 500 graphs (`bench.converge`, py-spy) the groups of passes that wrote nothing were 6% of the
operator's CPU.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import anyio

__all__ = ["side_by_side"]


async def side_by_side(calls: Sequence[Callable[[], Awaitable[None]]], *, limit: int) -> None:
    """Await every call, at most `limit` at a time; none, or one, without a task group. Calls
    catch their own errors: one that raises cancels the others, and surfaces bare when it ran
    alone but in an ExceptionGroup when it had company."""
    if not calls:
        return
    if len(calls) == 1:
        await calls[0]()
        return
    limiter = anyio.CapacityLimiter(limit)

    async def limited(call: Callable[[], Awaitable[None]]) -> None:
        async with limiter:
            await call()

    async with anyio.create_task_group() as group:
        for call in calls:
            group.start_soon(limited, call)
