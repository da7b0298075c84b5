import asyncio

import anyio
import pytest

from manager.runtime.workqueue import DEFAULT_PRIORITY, LOW_PRIORITY, Queue, QueueShutDown

pytestmark = pytest.mark.anyio


async def take_one(
    queue: Queue[str], got: list[tuple[str, str]], name: str, below: int | None
) -> None:
    """A worker named `name` that takes one item (`below` as `Queue.get` has it) into `got`."""
    got.append((name, await queue.get(below=below)))


async def test_items_come_out_in_the_order_they_were_added() -> None:
    queue: Queue[str] = Queue()
    for key in ["a", "b", "c"]:
        queue.add(key)

    assert [await queue.get() for _ in range(3)] == ["a", "b", "c"]


async def test_repeated_adds_before_processing_collapse_into_one() -> None:
    queue: Queue[str] = Queue()
    queue.add("a")
    queue.add("b")
    queue.add("a")

    assert len(queue) == 2
    assert await queue.get() == "a"
    assert await queue.get() == "b"
    assert len(queue) == 0


async def test_an_item_added_while_processing_is_not_handed_to_a_second_worker() -> None:
    queue: Queue[str] = Queue()
    queue.add("a")
    taken = await queue.get()
    queue.add("a")

    assert len(queue) == 0
    with anyio.move_on_after(0.05):
        await queue.get()
        pytest.fail("a second worker got an item that is still being processed")
    queue.done(taken)
    assert len(queue) == 1
    assert await queue.get() == "a"


async def test_many_adds_during_processing_give_exactly_one_more_pass() -> None:
    queue: Queue[str] = Queue()
    queue.add("a")
    taken = await queue.get()
    for _ in range(5):
        queue.add("a")
    queue.done(taken)

    assert await queue.get() == "a"
    queue.done("a")
    assert len(queue) == 0


async def test_done_without_new_adds_leaves_the_queue_empty() -> None:
    queue: Queue[str] = Queue()
    queue.add("a")
    queue.done(await queue.get())

    assert len(queue) == 0
    assert queue.processing == 0


async def test_a_waiting_worker_wakes_when_an_item_arrives() -> None:
    queue: Queue[str] = Queue()
    got: list[str] = []

    async def worker() -> None:
        got.append(await queue.get())

    async with anyio.create_task_group() as tg:
        tg.start_soon(worker)
        await anyio.wait_all_tasks_blocked()
        assert got == []
        queue.add("a")

    assert got == ["a"]


async def test_waiting_workers_are_served_in_arrival_order_one_item_each() -> None:
    queue: Queue[int] = Queue()
    got: list[tuple[str, int]] = []

    async def worker(name: str) -> None:
        got.append((name, await queue.get()))

    async with anyio.create_task_group() as tg:
        for name in ["w1", "w2", "w3"]:
            tg.start_soon(worker, name)
            await anyio.wait_all_tasks_blocked()
        for item in [1, 2, 3]:
            queue.add(item)

    assert got == [("w1", 1), ("w2", 2), ("w3", 3)]


async def test_a_cancelled_waiter_passes_its_item_to_the_next_worker() -> None:
    # asyncio's own cancellation lands between the wake-up and the waiter's resumption, the race
    # the queue guards against (anyio's cancel scopes deliver later, letting the waiter win).
    queue: Queue[str] = Queue()
    got: list[tuple[str, str]] = []

    async def worker(name: str) -> None:
        got.append((name, await queue.get()))

    doomed = asyncio.create_task(worker("doomed"))
    await anyio.wait_all_tasks_blocked()
    survivor = asyncio.create_task(worker("survivor"))
    await anyio.wait_all_tasks_blocked()
    queue.add("a")  # wakes the first waiter...
    doomed.cancel()  # ...which is cancelled before it can take the item
    await anyio.wait_all_tasks_blocked()
    survivor.cancel()
    await asyncio.gather(doomed, survivor, return_exceptions=True)

    assert got == [("survivor", "a")], "the item was stranded in the queue with a worker waiting"


async def test_shut_down_refuses_new_items_but_hands_out_queued_ones() -> None:
    queue: Queue[str] = Queue()
    queue.add("a")
    queue.shut_down()
    queue.add("b")

    assert queue.shutting_down
    assert await queue.get() == "a"
    with pytest.raises(QueueShutDown):
        await queue.get()


async def test_shut_down_wakes_every_waiting_worker() -> None:
    queue: Queue[str] = Queue()
    stopped: list[int] = []

    async def worker(number: int) -> None:
        with pytest.raises(QueueShutDown):
            await queue.get()
        stopped.append(number)

    async with anyio.create_task_group() as tg:
        for number in range(3):
            tg.start_soon(worker, number)
        await anyio.wait_all_tasks_blocked()
        queue.shut_down()

    assert sorted(stopped) == [0, 1, 2]


async def test_shut_down_with_drain_waits_for_items_in_processing() -> None:
    queue: Queue[str] = Queue()
    queue.add("a")
    queue.add("b")
    first = await queue.get()
    second = await queue.get()
    drained = False

    async def drain() -> None:
        nonlocal drained
        await queue.shut_down_with_drain()
        drained = True

    async with anyio.create_task_group() as tg:
        tg.start_soon(drain)
        await anyio.wait_all_tasks_blocked()
        queue.done(first)
        await anyio.wait_all_tasks_blocked()
        assert not drained
        queue.done(second)

    assert drained


async def test_shut_down_with_drain_returns_at_once_when_nothing_is_processing() -> None:
    queue: Queue[str] = Queue()
    with anyio.fail_after(1):
        await queue.shut_down_with_drain()
    assert queue.shutting_down


async def test_higher_priorities_go_first_and_each_priority_keeps_its_order() -> None:
    queue: Queue[str] = Queue()
    queue.add("status-a", priority=LOW_PRIORITY)
    queue.add("pods-a")
    queue.add("status-b", priority=LOW_PRIORITY)
    queue.add("pods-b")

    assert queue.queued_at_or_above(DEFAULT_PRIORITY) == 2
    taken = [await queue.get() for _ in range(4)]

    assert taken == ["pods-a", "pods-b", "status-a", "status-b"]
    assert queue.queued_at_or_above(LOW_PRIORITY) == 0


async def test_an_item_added_again_at_a_higher_priority_moves_up_never_down() -> None:
    queue: Queue[str] = Queue()
    queue.add("a", priority=LOW_PRIORITY)
    queue.add("b", priority=LOW_PRIORITY)
    queue.add("c")
    queue.add("b")  # raised: now behind c, ahead of a
    queue.add("c", priority=LOW_PRIORITY)  # stays at the default

    assert len(queue) == 3
    assert queue.queued_at_or_above(DEFAULT_PRIORITY) == 2
    assert [await queue.get() for _ in range(3)] == ["c", "b", "a"]
    assert len(queue) == 0


async def test_an_item_added_while_processing_comes_back_at_the_highest_priority_asked() -> None:
    queue: Queue[str] = Queue()
    queue.add("a")
    taken = await queue.get()
    queue.add("a", priority=LOW_PRIORITY)
    queue.add("b", priority=LOW_PRIORITY)
    queue.add("a")
    queue.done(taken)

    assert [await queue.get() for _ in range(2)] == ["a", "b"]


async def test_a_worker_for_waiting_work_takes_low_items_once_nothing_urgent_is_queued() -> None:
    queue: Queue[str] = Queue()
    got: list[tuple[str, str]] = []

    async with anyio.create_task_group() as tg:
        tg.start_soon(take_one, queue, got, "extra", DEFAULT_PRIORITY)
        await anyio.wait_all_tasks_blocked()
        queue.add("pods")
        queue.add("service", priority=LOW_PRIORITY)
        await anyio.wait_all_tasks_blocked()
        assert got == [], "the extra worker took an item while urgent work was queued"
        tg.start_soon(take_one, queue, got, "general", None)

    assert got == [("general", "pods"), ("extra", "service")]


async def test_a_worker_for_waiting_work_never_takes_urgent_work() -> None:
    queue: Queue[str] = Queue()
    got: list[str] = []

    async def extra() -> None:
        got.append(await queue.get(below=DEFAULT_PRIORITY))

    async with anyio.create_task_group() as tg:
        tg.start_soon(extra)
        await anyio.wait_all_tasks_blocked()
        queue.add("pods")
        await anyio.wait_all_tasks_blocked()
        assert got == []
        queue.add("service", priority=LOW_PRIORITY)  # still behind pods: the extra waits
        await anyio.wait_all_tasks_blocked()
        assert got == []
        assert await queue.get() == "pods"

    assert got == ["service"]
    assert len(queue) == 0


async def test_a_worker_for_waiting_work_leaves_when_the_queue_shuts_down() -> None:
    queue: Queue[str] = Queue()
    queue.add("pods")
    queue.shut_down()

    with pytest.raises(QueueShutDown):
        await queue.get(below=DEFAULT_PRIORITY)
    assert await queue.get() == "pods", "the urgent item stays for the general workers"


async def test_an_item_moved_up_past_the_worker_woken_for_it_reaches_another() -> None:
    # The extra worker waited longest, so the low item woke it; the item moved up to the
    # default priority before it ran, which that worker never takes. The general worker, waiting
    # all along, must get it (it was lost: seen in e2e as a component never reconciled again).
    queue: Queue[str] = Queue()
    got: list[tuple[str, str]] = []

    async with anyio.create_task_group() as tg:
        tg.start_soon(take_one, queue, got, "extra", DEFAULT_PRIORITY)
        await anyio.wait_all_tasks_blocked()
        tg.start_soon(take_one, queue, got, "general", None)
        await anyio.wait_all_tasks_blocked()
        queue.add("component", priority=LOW_PRIORITY)
        queue.add("component")
        await anyio.wait_all_tasks_blocked()
        assert got == [("general", "component")]
        assert len(queue) == 0
        tg.cancel_scope.cancel()
