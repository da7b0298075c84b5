import functools
from collections.abc import Coroutine
from typing import Any

import anyio
import pytest

from manager.runtime.side_by_side import side_by_side

pytestmark = pytest.mark.anyio


class Calls:
    """Calls that each hold a turn for a moment, counting how many run at once."""

    def __init__(self) -> None:
        self.running = 0
        self.most_at_once = 0
        self.done: list[int] = []

    def call(self, number: int) -> functools.partial[Coroutine[Any, Any, None]]:
        return functools.partial(self.run, number)

    async def run(self, number: int) -> None:
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        await anyio.sleep(0.01)
        self.running -= 1
        self.done.append(number)


async def test_every_call_runs_and_no_more_than_the_limit_at_once() -> None:
    calls = Calls()
    await side_by_side([calls.call(number) for number in range(7)], limit=3)
    assert sorted(calls.done) == list(range(7))
    assert calls.most_at_once == 3


async def test_one_call_and_none_are_awaited_too() -> None:
    calls = Calls()
    await side_by_side([calls.call(1)], limit=3)
    await side_by_side([], limit=3)
    assert calls.done == [1]


async def test_a_lone_call_that_raises_raises_its_own_error() -> None:
    async def refused() -> None:
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await side_by_side([refused], limit=3)
