from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

import pytest

from dynamo_operator.api import DynamoGraphDeploymentStatus
from dynamo_operator.status import derive_graph_status, is_progress_only
from dynamo_operator.status.graph_deployment import MAX_MESSAGE_LENGTH
from tests.dynamo_operator.status.golden import (
    assert_no_unknown_fields,
    cases,
    check_golden,
    failure_of,
    load_input,
    now_of,
)

CASES = cases("graph")


def derive(case_input: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    return derive_graph_status(
        case_input["dgd"],
        case_input.get("dcds") or (),
        overrides.get("now", now_of(case_input)),
        failure=failure_of(case_input),
        waiting=case_input.get("waiting") or (),
    )


@pytest.mark.parametrize("case", CASES)
def test_status_matches_golden(case: str) -> None:
    check_golden("graph", case, derive(load_input("graph", case)))


@pytest.mark.parametrize("case", CASES)
def test_status_fits_the_crd_schema(case: str) -> None:
    status = derive(load_input("graph", case))
    model = DynamoGraphDeploymentStatus.model_validate(status)
    assert_no_unknown_fields(model)
    assert model.to_wire() == status


@pytest.mark.parametrize("case", CASES)
def test_deriving_again_from_the_written_status_changes_nothing(case: str) -> None:
    case_input = load_input("graph", case)
    written = derive(case_input)
    case_input["dgd"]["status"] = written
    assert derive(case_input, now=now_of(case_input) + timedelta(hours=5)) == written


@pytest.mark.parametrize("case", CASES)
def test_derivation_never_mutates_its_input(case: str) -> None:
    case_input = load_input("graph", case)
    pristine = copy.deepcopy(case_input)
    derive(case_input)
    assert case_input == pristine


@pytest.mark.parametrize("case", CASES)
def test_ready_is_true_exactly_when_successful(case: str) -> None:
    status = derive(load_input("graph", case))
    (ready,) = status["conditions"]
    assert (ready["status"] == "True") == (status["state"] == "successful")


def test_the_message_is_bounded() -> None:
    status = derive(load_input("graph", "bounded-message"))
    message = status["conditions"][0]["message"]
    assert len(message) <= MAX_MESSAGE_LENGTH
    assert message.endswith(" more")


def test_a_graph_without_services_is_successful() -> None:
    case_input = load_input("graph", "converged")
    case_input["dgd"]["spec"]["services"] = {}
    status = derive(case_input)
    assert status["state"] == "successful"
    assert "services" not in status


def test_a_child_without_status_is_not_reconciled_yet() -> None:
    case_input = load_input("graph", "converged")
    del case_input["dcds"][0]["status"]
    status = derive(case_input)
    assert status["conditions"][0]["message"] == (
        "Resources not ready: vllm-disagg-frontend: not reconciled yet"
    )
    assert "Frontend" not in status["services"]


def pending(
    message: str, ready: int, *, reason: str = "SomeResourcesAreNotReady"
) -> dict[str, Any]:
    return {
        "state": "pending",
        "observedGeneration": 2,
        "conditions": [
            {
                "type": "Ready",
                "status": "False",
                "reason": reason,
                "message": message,
                "lastTransitionTime": "2026-11-23T10:00:00Z",
                "observedGeneration": 2,
            }
        ],
        "services": {"worker": {"replicas": 2, "readyReplicas": ready}},
    }


def test_a_pending_graph_moving_forward_is_progress_only() -> None:
    old = pending("Resources not ready: w: 0 of 2 replicas available", ready=0)
    new = pending("Resources not ready: w: 1 of 2 replicas available", ready=1)

    assert is_progress_only(old, new)


@pytest.mark.parametrize(
    "change",
    [
        {"state": "successful"},
        {"observedGeneration": 3},
        {"reason": "ImagePullFailed"},
    ],
    ids=["state", "generation", "reason"],
)
def test_a_change_of_state_generation_or_reason_is_more_than_progress(
    change: dict[str, Any],
) -> None:
    old = pending("Resources not ready: w: 0 of 2 replicas available", ready=0)
    new = pending("Resources not ready: w: 1 of 2 replicas available", ready=1)
    if "reason" in change:
        new["conditions"][0]["reason"] = change["reason"]
    else:
        new.update(change)

    assert not is_progress_only(old, new)


def test_a_first_status_is_progress_while_pending_only() -> None:
    """From nothing to on its way: held back a little, so a graph that converges at once is
    written once; a first status saying it converged or failed is written at once."""
    new = pending("Resources not ready: w: 1 of 2 replicas available", ready=1)
    assert is_progress_only(None, new)
    assert not is_progress_only(None, {**new, "state": "successful"})
    assert not is_progress_only(None, {**new, "state": "failed"})
