import anyio
import pytest

from manager.runtime.backoff import Backoff
from manager.runtime.clock import FakeClock


def test_delays_double_from_the_initial_value_up_to_the_cap() -> None:
    backoff = Backoff(FakeClock(), initial=0.8, cap=30.0, jitter=0.0)

    assert [backoff.next_delay() for _ in range(8)] == [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30, 30]


def test_jitter_stretches_each_delay_by_up_to_its_factor_but_never_past_the_cap() -> None:
    draws = iter([0.0, 0.5, 1.0, 1.0])
    backoff = Backoff(FakeClock(), initial=10.0, cap=30.0, jitter=1.0, rand=lambda: next(draws))

    assert [backoff.next_delay() for _ in range(4)] == [10.0, 30.0, 30.0, 30.0]


def test_a_quiet_period_resets_the_delay_to_the_initial_value() -> None:
    clock = FakeClock()
    backoff = Backoff(clock, initial=1.0, jitter=0.0, reset_after=120.0)
    for _ in range(5):
        backoff.next_delay()

    clock.advance(119.0)
    assert backoff.next_delay() == 30.0
    clock.advance(120.0)
    assert backoff.next_delay() == 1.0


def test_reset_starts_again_from_the_initial_delay() -> None:
    backoff = Backoff(FakeClock(), initial=1.0, jitter=0.0)
    for _ in range(5):
        backoff.next_delay()

    backoff.reset()
    assert [backoff.next_delay() for _ in range(2)] == [1.0, 2.0]


@pytest.mark.anyio
async def test_wait_sleeps_on_the_clock_for_the_delay() -> None:
    clock = FakeClock()
    backoff = Backoff(clock, initial=2.0, jitter=0.0)
    finished = anyio.Event()

    async def wait() -> None:
        await backoff.wait()
        finished.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(wait)
        await anyio.wait_all_tasks_blocked()
        clock.advance(1.9)
        await anyio.wait_all_tasks_blocked()
        assert not finished.is_set()
        clock.advance(0.1)
        await finished.wait()
