from __future__ import annotations

from datetime import UTC, datetime, timedelta

from manager.runtime.progress import ProgressThrottle

START = datetime(2026, 1, 1, tzinfo=UTC)
FIRST, CAP = timedelta(seconds=5), timedelta(seconds=30)


def at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def test_progress_waits_for_the_rest_of_the_interval_since_the_last_write() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    throttle.written("a", START, progress=False)
    throttle.written("b", at(2), progress=False)
    assert throttle.wait("a", at(2)) == 3
    assert throttle.wait("b", at(2)) == 5, "each object has its own"
    assert throttle.wait("a", at(5)) == 0


def test_progress_comes_first_soon_after_a_change_then_every_cap() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    throttle.written("a", START, progress=False)
    waits = []
    moment = START
    for _ in range(4):
        wait = throttle.wait("a", moment)
        moment += timedelta(seconds=wait)
        waits.append(wait)
        throttle.written("a", moment, progress=True)
    assert waits == [5, 30, 30, 30]


def test_more_than_progress_starts_over() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    throttle.written("a", START, progress=False)
    throttle.written("a", at(5), progress=True)
    throttle.written("a", at(6), progress=False)
    assert throttle.wait("a", at(6)) == 5


def test_a_first_status_waits_until_the_object_was_first_asked_about_first_ago() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    assert throttle.wait("a", at(10)) == 5
    assert throttle.wait("a", at(12)) == 3, "the interval runs from the first time asked"
    assert throttle.wait("a", at(15)) == 0


def test_after_a_first_status_held_back_progress_waits_the_cap() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    throttle.wait("a", START)
    throttle.written("a", at(5), progress=True)
    assert throttle.wait("a", at(6)) == 29


def test_objects_held_back_and_never_written_are_forgotten() -> None:
    """Deleted before their first status: their entries go once older than twice the cap."""
    throttle = ProgressThrottle(FIRST, CAP)
    for index in range(1000):
        throttle.wait(f"object-{index}", at(index))
    assert len(throttle) <= 61


def test_a_first_status_may_be_told_to_wait_longer_than_first_but_not_than_the_cap() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    assert throttle.wait("a", at(0), first_status=timedelta(seconds=20)) == 20
    assert throttle.wait("a", at(19), first_status=timedelta(seconds=20)) == 1
    assert throttle.wait("a", at(20), first_status=timedelta(seconds=20)) == 0
    assert throttle.wait("b", at(0), first_status=timedelta(hours=1)) == CAP.total_seconds()
    assert throttle.wait("b", at(30), first_status=timedelta(hours=1)) == 0


def test_only_objects_written_within_the_cap_are_remembered() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    for index in range(1000):
        throttle.written(f"object-{index}", at(index), progress=False)
    assert len(throttle) <= 31


def _progress_writes(throttle: ProgressThrottle, objects: int, seconds: int) -> int:
    """Objects in progress asking every second, each writing whenever it may."""
    writes = 0
    for second in range(seconds):
        for index in range(objects):
            if throttle.wait(f"object-{index}", at(second)) == 0:
                throttle.written(f"object-{index}", at(second), progress=True)
                writes += 1
    return writes


def test_under_load_the_objects_in_progress_share_the_budget() -> None:
    """200 objects in progress for 10 minutes: about `rate` progress writes a second between
    them (the first round all at once), where each alone would write every `cap`."""
    budget = ProgressThrottle(FIRST, CAP, rate=1.0, longest=timedelta(minutes=10))
    assert _progress_writes(budget, 200, 600) <= 600 + 200
    assert _progress_writes(ProgressThrottle(FIRST, CAP), 200, 600) >= 200 * 600 / 40


def test_a_few_objects_in_progress_keep_the_intervals() -> None:
    throttle = ProgressThrottle(FIRST, CAP, rate=1.0, longest=timedelta(minutes=10))
    assert throttle.wait("a", START) == 5
    throttle.written("a", at(5), progress=True)
    assert throttle.wait("a", at(5)) == 30


def test_the_budget_stretches_an_interval_to_longest_at_most() -> None:
    throttle = ProgressThrottle(FIRST, CAP, rate=1.0, longest=timedelta(minutes=2))
    for index in range(1000):
        throttle.wait(f"object-{index}", START)
    assert throttle.wait("late", START) == 120
    # Forgotten after twice the longest interval, however many there were.
    assert throttle.wait("later", at(241)) == 5
    assert len(throttle) == 1
