"""Reading status conditions: the harness's one "is it True?"."""

from __future__ import annotations

from e2e.localcluster.conditions import condition, is_condition_true

POD = {
    "status": {
        "conditions": [
            {"type": "PodScheduled", "status": "True"},
            {"type": "Ready", "status": "False", "reason": "ContainersNotReady"},
        ]
    }
}


def test_a_condition_is_found_by_type_and_absent_ones_are_empty() -> None:
    assert condition(POD, "Ready")["reason"] == "ContainersNotReady"
    assert condition(POD, "Initialized") == {}
    assert condition({"status": None}, "Ready") == {}
    assert condition(None, "Ready") == {}


def test_only_the_string_true_is_true() -> None:
    assert is_condition_true(POD, "PodScheduled")
    assert not is_condition_true(POD, "Ready")
    assert not is_condition_true(POD, "Initialized")
    assert not is_condition_true({"status": {"conditions": [{"type": "X", "status": True}]}}, "X")
    assert not is_condition_true(None, "Ready")
