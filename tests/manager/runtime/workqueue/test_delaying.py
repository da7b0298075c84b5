from collections.abc import AsyncIterator

import anyio
import pytest

from manager.runtime.clock import FakeClock
from manager.runtime.workqueue import DEFAULT_PRIORITY, LOW_PRIORITY, DelayingQueue

pytestmark = pytest.mark.anyio


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def queue(clock: FakeClock) -> AsyncIterator[DelayingQueue[str]]:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    async with anyio.create_task_group() as tg:
        await tg.start(queue.run)
        yield queue
        queue.shut_down()


async def test_an_item_arrives_only_once_its_delay_has_passed(
    queue: DelayingQueue[str], clock: FakeClock
) -> None:
    queue.add_after("a", 10)
    await clock.settle(9.9)
    assert len(queue) == 0
    assert queue.waiting == 1

    await clock.settle(0.1)
    assert len(queue) == 1
    assert await queue.get() == "a"


async def test_a_non_positive_delay_adds_at_once(queue: DelayingQueue[str]) -> None:
    queue.add_after("a", 0)
    queue.add_after("b", -1)
    assert [await queue.get(), await queue.get()] == ["a", "b"]


async def test_delayed_items_arrive_in_ready_time_order(
    queue: DelayingQueue[str], clock: FakeClock
) -> None:
    queue.add_after("late", 30)
    queue.add_after("early", 10)
    queue.add_after("middle", 20)
    await clock.settle(30)

    assert [await queue.get() for _ in range(3)] == ["early", "middle", "late"]


async def test_a_second_add_after_keeps_the_earlier_ready_time(
    queue: DelayingQueue[str], clock: FakeClock
) -> None:
    queue.add_after("a", 10)
    queue.add_after("a", 60)
    await clock.settle(10)
    assert len(queue) == 1


async def test_a_second_add_after_can_bring_an_item_forward(
    queue: DelayingQueue[str], clock: FakeClock
) -> None:
    queue.add_after("a", 60)
    await anyio.wait_all_tasks_blocked()
    queue.add_after("a", 5)
    await clock.settle(5)
    assert len(queue) == 1
    assert queue.waiting == 0
    await queue.get()
    queue.done("a")

    await clock.settle(60)
    assert len(queue) == 0, "the superseded later ready time must not add the item again"


async def test_an_earlier_item_wakes_a_runner_sleeping_for_a_later_one(
    queue: DelayingQueue[str], clock: FakeClock
) -> None:
    queue.add_after("late", 3600)
    await anyio.wait_all_tasks_blocked()
    queue.add_after("soon", 1)
    await clock.settle(1)
    assert await queue.get() == "soon"


async def test_a_delayed_add_of_a_queued_item_is_collapsed(
    queue: DelayingQueue[str], clock: FakeClock
) -> None:
    queue.add("a")
    queue.add_after("a", 5)
    await clock.settle(5)
    assert len(queue) == 1


async def test_add_after_is_ignored_once_shut_down(
    queue: DelayingQueue[str], clock: FakeClock
) -> None:
    queue.shut_down()
    queue.add_after("a", 1)
    assert queue.waiting == 0


async def test_run_returns_when_the_queue_shuts_down(clock: FakeClock) -> None:
    queue: DelayingQueue[str] = DelayingQueue(clock=clock)
    queue.add_after("a", 3600)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            await tg.start(queue.run)
            queue.shut_down()


async def test_a_delayed_item_arrives_at_the_priority_it_was_added_with(
    queue: DelayingQueue[str], clock: FakeClock
) -> None:
    queue.add_after("later", 1, priority=LOW_PRIORITY)
    await clock.settle(1)
    queue.add("urgent")

    assert queue.queued_at_or_above(DEFAULT_PRIORITY) == 1
    assert [await queue.get(), await queue.get()] == ["urgent", "later"]
