import itertools

import anyio
import pytest
from prometheus_client import REGISTRY

from manager.runtime.clock import FakeClock
from manager.runtime.workqueue import LOW_PRIORITY, PrometheusQueueMetrics, RateLimitingQueue

pytestmark = pytest.mark.anyio

_names = itertools.count()


def sample(metric: str, queue_name: str, **extra: str) -> float:
    labels = {"name": queue_name, "controller": queue_name, **extra}
    value = REGISTRY.get_sample_value(metric, labels)
    return 0.0 if value is None else value


@pytest.fixture
def name() -> str:
    return f"metrics-test-{next(_names)}"


async def test_depth_and_adds_follow_the_queue(name: str) -> None:
    clock = FakeClock()
    queue: RateLimitingQueue[str] = RateLimitingQueue(
        clock=clock, metrics=PrometheusQueueMetrics(name, clock)
    )
    queue.add("a")
    queue.add("b")
    queue.add("a")  # collapsed: not an add

    assert sample("workqueue_adds_total", name) == 2
    assert sample("workqueue_depth", name, priority="0") == 2
    await queue.get()
    assert sample("workqueue_depth", name, priority="0") == 1


async def test_depth_is_counted_per_priority_as_items_move_up_and_are_taken(name: str) -> None:
    clock = FakeClock()
    queue: RateLimitingQueue[str] = RateLimitingQueue(
        clock=clock, metrics=PrometheusQueueMetrics(name, clock)
    )
    assert (
        REGISTRY.get_sample_value(
            "workqueue_depth", {"name": name, "controller": name, "priority": "0"}
        )
        == 0
    )  # the default priority's series is there before anything is queued
    queue.add("a", priority=LOW_PRIORITY)
    queue.add("b", priority=LOW_PRIORITY)
    queue.add("c")
    assert sample("workqueue_depth", name, priority="-100") == 2
    assert sample("workqueue_depth", name, priority="0") == 1

    queue.add("b")  # moves up
    assert sample("workqueue_depth", name, priority="-100") == 1
    assert sample("workqueue_depth", name, priority="0") == 2

    assert {await queue.get(), await queue.get()} == {"b", "c"}
    assert sample("workqueue_depth", name, priority="0") == 0
    assert await queue.get() == "a"
    assert sample("workqueue_depth", name, priority="-100") == 0


async def test_queue_and_work_durations_are_measured_on_the_clock(name: str) -> None:
    clock = FakeClock()
    queue: RateLimitingQueue[str] = RateLimitingQueue(
        clock=clock, metrics=PrometheusQueueMetrics(name, clock)
    )
    queue.add("a")
    clock.advance(0.5)
    item = await queue.get()
    clock.advance(2.0)

    assert sample("workqueue_unfinished_work_seconds", name) == 2.0
    assert sample("workqueue_longest_running_processor_seconds", name) == 2.0
    queue.done(item)

    assert sample("workqueue_queue_duration_seconds_sum", name) == 0.5
    assert sample("workqueue_work_duration_seconds_sum", name) == 2.0
    assert sample("workqueue_work_duration_seconds_bucket", name, le="1.0") == 0
    assert sample("workqueue_work_duration_seconds_bucket", name, le="10.0") == 1
    assert sample("workqueue_unfinished_work_seconds", name) == 0.0


async def test_every_delayed_add_counts_as_a_retry(name: str) -> None:
    clock = FakeClock()
    queue: RateLimitingQueue[str] = RateLimitingQueue(
        clock=clock, metrics=PrometheusQueueMetrics(name, clock)
    )
    async with anyio.create_task_group() as tg:
        await tg.start(queue.run)
        queue.add_rate_limited("a")
        queue.add_after("b", 30)
        queue.add_after("c", 0)
        queue.shut_down()

    assert sample("workqueue_retries_total", name) == 3
