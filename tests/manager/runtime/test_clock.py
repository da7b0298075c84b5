import anyio
import pytest

from manager.runtime.clock import FakeClock, RealClock


@pytest.mark.anyio
async def test_fake_sleepers_wake_in_deadline_order_only_when_time_reaches_them() -> None:
    clock = FakeClock(start=0)
    woke: list[str] = []

    async def sleeper(name: str, deadline: float) -> None:
        await clock.sleep_until(deadline)
        woke.append(name)

    async with anyio.create_task_group() as tg:
        tg.start_soon(sleeper, "late", 20)
        tg.start_soon(sleeper, "early", 10)
        await anyio.wait_all_tasks_blocked()
        clock.advance(9)
        await anyio.wait_all_tasks_blocked()
        assert woke == []
        clock.advance(11)

    assert woke == ["early", "late"]


@pytest.mark.anyio
async def test_sleeping_until_a_past_deadline_returns_at_once() -> None:
    with anyio.fail_after(5):
        await FakeClock(start=100).sleep_until(50)
        await RealClock().sleep_until(0)


def test_fake_time_cannot_go_backwards() -> None:
    with pytest.raises(ValueError, match="backwards"):
        FakeClock().advance(-1)
