from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from dynamo_operator.api import ConditionStatus
from dynamo_operator.status import (
    changed_condition,
    find_condition,
    format_time,
    is_condition_true,
    set_condition,
)

T0 = datetime(2025, 3, 1, 11, 0, 0, 123456, tzinfo=UTC)
T1 = T0 + timedelta(hours=1)


def ready(
    conditions: Sequence[Mapping[str, Any]] | None,
    status: ConditionStatus,
    *,
    reason: str = "R",
    message: str = "m",
    observed_generation: int = 1,
    now: datetime = T0,
) -> list[dict[str, Any]]:
    return set_condition(
        conditions,
        type="Ready",
        status=status,
        reason=reason,
        message=message,
        observed_generation=observed_generation,
        now=now,
    )


def test_times_are_utc_seconds_with_z_as_the_api_server_stores_them() -> None:
    assert format_time(T0) == "2025-03-01T11:00:00Z"
    assert format_time(T0.astimezone(timezone(timedelta(hours=5)))) == "2025-03-01T11:00:00Z"
    assert format_time(datetime(2025, 3, 1, 11, 0, 0)) == "2025-03-01T11:00:00Z"


def test_a_new_condition_has_every_field() -> None:
    assert ready(None, ConditionStatus.FALSE) == [
        {
            "type": "Ready",
            "status": "False",
            "observedGeneration": 1,
            "lastTransitionTime": "2025-03-01T11:00:00Z",
            "reason": "R",
            "message": "m",
        }
    ]


def test_reason_and_message_changes_keep_the_transition_time() -> None:
    first = ready(None, ConditionStatus.FALSE)
    second = ready(
        first, ConditionStatus.FALSE, reason="Other", message="n", now=T1, observed_generation=2
    )
    assert second[0]["lastTransitionTime"] == "2025-03-01T11:00:00Z"
    assert (second[0]["reason"], second[0]["message"], second[0]["observedGeneration"]) == (
        "Other",
        "n",
        2,
    )


def test_a_status_flip_bumps_the_transition_time() -> None:
    first = ready(None, ConditionStatus.FALSE)
    second = ready(first, ConditionStatus.TRUE, now=T1)
    assert second[0]["lastTransitionTime"] == "2025-03-01T12:00:00Z"
    assert second[0]["status"] == "True"


def test_other_conditions_are_kept_and_the_list_is_sorted_by_type() -> None:
    existing = [{"type": "Valid", "status": "True"}, {"type": "Available", "status": "True"}]
    result = ready(existing, ConditionStatus.TRUE)
    assert [condition["type"] for condition in result] == ["Available", "Ready", "Valid"]
    assert existing == [
        {"type": "Valid", "status": "True"},
        {"type": "Available", "status": "True"},
    ]
    result[0]["status"] = "False"
    assert existing[1]["status"] == "True"


def test_readers() -> None:
    conditions = ready(None, ConditionStatus.TRUE)
    assert find_condition(conditions, "Ready") == conditions[0]
    assert find_condition(conditions, "Available") is None
    assert find_condition(None, "Ready") is None
    assert is_condition_true(conditions, "Ready")
    assert not is_condition_true(ready(None, ConditionStatus.UNKNOWN), "Ready")
    assert not is_condition_true([], "Ready")


def test_changed_condition_reports_status_or_reason_flips_only() -> None:
    def status(value: str, reason: str, message: str = "m") -> dict[str, object]:
        return {
            "conditions": [{"type": "Ready", "status": value, "reason": reason, "message": message}]
        }

    assert changed_condition(None, status("False", "r"), "Ready") is not None
    assert changed_condition(status("False", "r"), status("False", "r", "other"), "Ready") is None
    assert changed_condition(status("False", "r"), status("True", "r"), "Ready") is not None
    assert changed_condition(status("False", "r"), status("False", "s"), "Ready") is not None
    assert changed_condition(status("False", "r"), {"conditions": []}, "Ready") is None
