"""One Event per transition of a kind's main condition, and none while nothing changed."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.status import Event, TransitionEvents, derive_transition_event

WAITING_KIND = TransitionEvents("Ready", ready_reason="Ready", warn_while_waiting=False)
RENAMING_KIND = TransitionEvents("Ready", event_reasons={"AllGood": "EverythingReady"})


def status(state: str, reason: str, message: str = "m") -> dict[str, Any]:
    return {
        "conditions": [{"type": "Ready", "status": state, "reason": reason, "message": message}]
    }


def test_no_event_without_a_transition() -> None:
    same = status("False", "Pending")

    assert derive_transition_event(same, same, WAITING_KIND, failed=True) is None


def test_becoming_ready_is_a_normal_event_with_the_kinds_reason() -> None:
    event = derive_transition_event(
        status("False", "Pending"), status("True", "AllGood", "up"), WAITING_KIND, failed=False
    )

    assert event == Event("Normal", "Ready", "up")


def test_becoming_ready_another_object_announces_makes_no_event_but_warnings_stay() -> None:
    up, down = status("True", "AllGood", "up"), status("False", "Crashing", "down")

    assert (
        derive_transition_event(down, up, WAITING_KIND, failed=False, announce_ready=False) is None
    )
    warning = derive_transition_event(up, down, WAITING_KIND, failed=False, announce_ready=False)
    assert warning == Event("Warning", "Crashing", "down")


@pytest.mark.parametrize(
    ("old", "failed", "expected"),
    [
        (None, False, None),  # on its way, never ready: not a warning
        (None, True, Event("Warning", "Invalid", "bad")),
        (status("True", "AllGood"), False, Event("Warning", "Invalid", "bad")),
    ],
)
def test_a_waiting_kind_warns_only_on_a_failure_or_after_being_ready(
    old: dict[str, Any] | None, failed: bool, expected: Event | None
) -> None:
    new = status("False", "Invalid", "bad")

    assert derive_transition_event(old, new, WAITING_KIND, failed=failed) == expected


def test_event_reasons_rename_the_conditions_and_every_change_warns() -> None:
    ready = derive_transition_event(
        None, status("True", "AllGood", "up"), RENAMING_KIND, failed=False
    )
    lost = derive_transition_event(
        status("True", "AllGood"), status("False", "Gone", "down"), RENAMING_KIND, failed=False
    )

    assert ready == Event("Normal", "EverythingReady", "up")
    assert lost == Event("Warning", "Gone", "down")
