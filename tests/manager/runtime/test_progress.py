from __future__ import annotations

from datetime import UTC, datetime, timedelta

from manager.runtime.progress import ProgressThrottle

START = datetime(2026, 1, 1, tzinfo=UTC)
CREATED = "2026-01-01T00:00:00Z"
FIRST, CAP = timedelta(seconds=5), timedelta(seconds=30)


def at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def test_progress_waits_for_the_rest_of_the_interval_since_the_last_write() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    assert throttle.wait("a", START) == 0, "an object never written may be written at once"
    throttle.written("a", START, progress=False)
    assert throttle.wait("a", at(2)) == 3
    assert throttle.wait("b", at(2)) == 0, "each object has its own"
    assert throttle.wait("a", at(5)) == 0


def test_each_progress_write_doubles_the_wait_up_to_the_cap() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    throttle.written("a", START, progress=False)
    waits = []
    moment = START
    for _ in range(5):
        wait = throttle.wait("a", moment)
        moment += timedelta(seconds=wait)
        waits.append(wait)
        throttle.written("a", moment, progress=True)
    assert waits == [5, 10, 20, 30, 30]


def test_more_than_progress_starts_the_doubling_over() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    throttle.written("a", START, progress=False)
    throttle.written("a", at(5), progress=True)
    throttle.written("a", at(6), progress=False)
    assert throttle.wait("a", at(6)) == 5


def test_a_first_status_waits_for_the_rest_of_the_first_interval_since_creation() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    assert throttle.wait("a", at(1), created=CREATED) == 4
    assert throttle.wait("a", at(5), created=CREATED) == 0
    assert throttle.wait("a", at(3600), created=CREATED) == 0


def test_a_creation_in_our_future_holds_nothing_back() -> None:
    """The API server's clock ahead of ours: waiting on it could last as long as the skew."""
    throttle = ProgressThrottle(FIRST, CAP)
    assert throttle.wait("a", START, created="2026-01-01T00:10:00Z") == 0


def test_after_a_first_status_held_since_creation_progress_waits_twice_as_long() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    throttle.written("a", at(5), progress=True)
    assert throttle.wait("a", at(6), created=CREATED) == 9


def test_only_objects_written_within_the_cap_are_remembered() -> None:
    throttle = ProgressThrottle(FIRST, CAP)
    for index in range(1000):
        throttle.written(f"object-{index}", at(index), progress=False)
    assert len(throttle) <= 31
