"""The status step every reconciler ends with: one write if the status changed, the Event after
it, progress spaced out, and the status write's refusals answered the same way for every kind
(the five reconcilers hand their derived status to it; e2e/operator runs them for real)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import pytest

from manager.runtime.client import ApiError, Invalid, NotFound
from manager.runtime.controller import Result, TerminalError, is_terminal
from manager.runtime.progress import ProgressThrottle
from manager.runtime.status_report import STATUS_REJECTED, StatusReport
from manager.runtime.workqueue import LOW_PRIORITY
from tests.manager.runtime.fakes import FakeRecorder

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
OBJ = {"kind": "Thing", "metadata": {"name": "a", "namespace": "ns", "uid": "uid-a"}}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass(frozen=True)
class Event:
    type: Literal["Normal", "Warning"]
    reason: str
    message: str


READY = Event("Normal", "Ready", "the thing is ready")


class FakeClient:
    def __init__(self, refusal: ApiError | None = None) -> None:
        self.refusal = refusal
        self.statuses: list[dict[str, Any]] = []

    async def apply_status_if_changed(
        self, desired_status: Mapping[str, Any], live: Mapping[str, Any]
    ) -> bool:
        if self.refusal is not None:
            raise self.refusal
        if desired_status == live.get("status"):
            return False
        if self.statuses and desired_status == self.statuses[-1]:
            return False  # as the real client: what it just wrote, the cache not caught up yet
        self.statuses.append(copy.deepcopy(dict(desired_status)))
        return True


def step(
    refusal: ApiError | None = None, throttle: ProgressThrottle | None = None
) -> tuple[StatusReport, FakeClient, FakeRecorder]:
    client, recorder = FakeClient(refusal), FakeRecorder()
    return StatusReport(client, recorder, throttle), client, recorder  # type: ignore[arg-type]


async def test_a_changed_status_is_written_once_then_its_event_recorded() -> None:
    report, client, recorder = step()

    assert await report.report(OBJ, {"state": "ready"}, READY, now=NOW) is None
    assert (
        await report.report({**OBJ, "status": {"state": "ready"}}, {"state": "ready"}, now=NOW)
        is None
    )

    assert client.statuses == [{"state": "ready"}]
    assert recorder.events == [("Normal", "Ready", "the thing is ready")]


async def test_a_transition_derived_again_before_the_cache_shows_it_is_told_once() -> None:
    """The next pass reads the old status from a cache behind the write and derives the same
    transition: no write, and no second Event (the first was recorded with the write)."""
    report, client, recorder = step()

    await report.report(OBJ, {"state": "ready"}, READY, now=NOW)
    await report.report(OBJ, {"state": "ready"}, READY, now=NOW)

    assert client.statuses == [{"state": "ready"}]
    assert recorder.events == [("Normal", "Ready", "the thing is ready")]


async def test_a_pass_that_wants_another_look_gets_it_after_the_status() -> None:
    report, client, _ = step()

    result = await report.report(OBJ, {"state": "checking"}, now=NOW, requeue_after=30.0)

    assert result == Result(requeue_after=30.0)
    assert client.statuses == [{"state": "checking"}]


async def test_an_object_deleted_since_the_cache_read_it_ends_the_pass_quietly() -> None:
    report, _, recorder = step(NotFound(404, "NotFound", 'things "a" not found', {}))

    result = await report.report(OBJ, {"state": "ready"}, READY, now=NOW, requeue_after=30.0)

    assert result is None  # no Event about an object that is gone, no look at it later
    assert recorder.events == []


async def test_a_status_the_api_server_refuses_is_told_on_the_object_and_not_retried() -> None:
    refusal = Invalid(422, "Invalid", 'Thing "a" is invalid: status.state: Unsupported value', {})
    report, _, recorder = step(refusal)

    with pytest.raises(TerminalError) as raised:
        await report.report(OBJ, {"state": "ready"}, READY, now=NOW)

    assert is_terminal(raised.value)  # the controller logs it once and does not retry
    assert raised.value.__cause__ is refusal
    # The user sees why the status does not move, not the transition it would have shown.
    assert recorder.events == [
        (
            "Warning",
            STATUS_REJECTED,
            'the API server refused the status: Thing "a" is invalid: status.state: '
            "Unsupported value",
        )
    ]


async def test_other_errors_of_the_write_are_left_to_the_controller_to_retry() -> None:
    report, _, recorder = step(ApiError(500, "InternalError", "etcd is away", {}))

    with pytest.raises(ApiError):
        await report.report(OBJ, {"state": "ready"}, READY, now=NOW)

    assert recorder.events == []


async def test_progress_waits_for_the_throttle_and_other_changes_do_not() -> None:
    first, cap = timedelta(seconds=5), timedelta(seconds=30)
    report, client, _ = step(throttle=ProgressThrottle(first, cap))
    written = {**OBJ, "status": {"state": "pending", "ready": 0}}

    held = await report.report(OBJ, {"state": "pending", "ready": 0}, now=NOW, progress_only=True)
    # a first status on its way waits `first`, behind anything more urgent then
    assert held == Result(requeue_after=5.0, priority=LOW_PRIORITY)
    assert client.statuses == []

    later = NOW + first
    assert await report.report(OBJ, written["status"], now=later, progress_only=True) is None
    progress = {"state": "pending", "ready": 1}
    held = await report.report(written, progress, now=later + first, progress_only=True)
    assert held == Result(requeue_after=(cap - first).total_seconds(), priority=LOW_PRIORITY)
    assert await report.report(written, {"state": "ready"}, now=later + first) is None

    assert client.statuses == [{"state": "pending", "ready": 0}, {"state": "ready"}]


async def test_while_more_urgent_work_waits_progress_waits_behind_it_and_the_rest_does_not() -> (
    None
):
    busy = True
    client, recorder = FakeClient(), FakeRecorder()
    throttle = ProgressThrottle(timedelta(seconds=5), timedelta(seconds=30))
    report = StatusReport(client, recorder, throttle, busy=lambda: busy)  # type: ignore[arg-type]
    pending = {"state": "pending", "ready": 0}
    much_later = NOW + timedelta(hours=1)  # long past any throttle

    held = await report.report(OBJ, pending, now=much_later, progress_only=True)
    assert held == Result(requeue_after=30.0, priority=LOW_PRIORITY)
    assert await report.report(OBJ, {"state": "ready"}, now=much_later) is None

    busy = False  # then the throttle alone decides: `first` after the last write
    held = await report.report(OBJ, pending, now=much_later, progress_only=True)
    assert held == Result(requeue_after=5.0, priority=LOW_PRIORITY)
    five_later = much_later + timedelta(seconds=5)
    assert await report.report(OBJ, pending, now=five_later, progress_only=True) is None
    assert client.statuses == [{"state": "ready"}, pending]


async def test_under_load_a_held_back_object_looks_again_when_the_budget_lets_it_write() -> None:
    first, cap, longest = timedelta(seconds=5), timedelta(seconds=30), timedelta(minutes=5)
    throttle = ProgressThrottle(first, cap, rate=2.0, longest=longest)
    report = StatusReport(FakeClient(), FakeRecorder(), throttle, busy=lambda: True)  # type: ignore[arg-type]
    pending = {"state": "pending", "ready": 0}

    held = await report.report(OBJ, pending, now=NOW, progress_only=True)
    assert held == Result(requeue_after=30.0, priority=LOW_PRIORITY)  # one object: `cap`

    for index in range(2000):  # 2,000 objects in progress share 2 writes a second
        throttle.wait(f"uid-{index}", NOW)
    held = await report.report(OBJ, pending, now=NOW, progress_only=True)
    assert held == Result(requeue_after=longest.total_seconds(), priority=LOW_PRIORITY)

    # Its own wait over, it still looks again only after its share of the budget, not `cap`.
    over = NOW + longest
    held = await report.report(OBJ, pending, now=over, progress_only=True)
    assert held == Result(requeue_after=longest.total_seconds(), priority=LOW_PRIORITY)
