from collections.abc import AsyncIterator

import anyio
import pytest

from manager.runtime.clock import FakeClock
from manager.runtime.workqueue import ItemExponentialFailureRateLimiter, RateLimitingQueue

pytestmark = pytest.mark.anyio


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def queue(clock: FakeClock) -> AsyncIterator[RateLimitingQueue[str]]:
    limiter: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter(1, 60)
    queue = RateLimitingQueue(limiter, clock=clock)
    async with anyio.create_task_group() as tg:
        await tg.start(queue.run)
        yield queue
        queue.shut_down()


async def test_each_rate_limited_retry_waits_longer(
    queue: RateLimitingQueue[str], clock: FakeClock
) -> None:
    queue.add_rate_limited("a")  # 1 s
    await clock.settle(1)
    queue.done(await queue.get())

    queue.add_rate_limited("a")  # 2 s
    await clock.settle(1.5)
    assert len(queue) == 0
    await clock.settle(0.5)
    assert len(queue) == 1
    assert queue.num_requeues("a") == 2


async def test_forget_resets_the_delay_of_the_next_retry(
    queue: RateLimitingQueue[str], clock: FakeClock
) -> None:
    for _ in range(5):
        queue.add_rate_limited("a")
    queue.forget("a")
    assert queue.num_requeues("a") == 0

    await clock.settle(1)  # the first add's 1 s delay: the later, longer ones are superseded
    assert len(queue) == 1


async def test_the_default_rate_limiter_is_the_controller_default() -> None:
    queue: RateLimitingQueue[str] = RateLimitingQueue(clock=FakeClock())
    assert queue.rate_limiter.when("a") == 0.005
    assert queue.rate_limiter.when("a") == 0.01
