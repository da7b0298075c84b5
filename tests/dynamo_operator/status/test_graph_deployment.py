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


@pytest.mark.parametrize("case", CASES)
def test_every_status_says_which_generation_it_describes(case: str) -> None:
    """A planner trusts `Ready` only when status.observedGeneration is metadata.generation."""
    case_input = load_input("graph", case)
    status = derive(case_input)

    generation = case_input["dgd"]["metadata"]["generation"]
    (ready,) = status["conditions"]
    assert status["observedGeneration"] == ready["observedGeneration"] == generation


PLANNER_COUNTS = ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas")


@pytest.mark.parametrize("case", CASES)
def test_every_reported_service_carries_the_counts_a_planner_reads(case: str) -> None:
    for summary in derive(load_input("graph", case)).get("services", {}).values():
        assert "componentKind" in summary
        assert all(isinstance(summary[key], int) for key in PLANNER_COUNTS)


def test_missing_counts_are_zero_and_a_leader_worker_set_serves_its_ready_groups() -> None:
    case_input = load_input("graph", "converged")
    frontend, decode, _ = case_input["dcds"]
    frontend["status"]["service"] = {"componentKind": "Deployment"}
    decode["status"]["service"] = {
        "componentKind": "LeaderWorkerSet",
        "replicas": 2,
        "updatedReplicas": 2,
        "readyReplicas": 1,
    }

    services = derive(case_input)["services"]

    assert services["Frontend"] == {
        "componentKind": "Deployment",
        "replicas": 0,
        "updatedReplicas": 0,
        "readyReplicas": 0,
        "availableReplicas": 0,
    }
    assert services["VllmDecodeWorker"]["availableReplicas"] == 1


def written_then_derived_again(case: str, later: timedelta) -> tuple[dict[str, Any], ...]:
    case_input = load_input("graph", case)
    written = derive(case_input)
    case_input["dgd"]["status"] = written
    return written, derive(case_input, now=now_of(case_input) + later)


def test_a_rollout_keeps_its_start_until_every_worker_is_done() -> None:
    """Pass after pass over the decode workers' rollout: the phase and its times as a planner
    and a user see them, and nothing left to write once it is over."""
    started = derive(load_input("graph", "rollout-starts"))
    assert started["rollingUpdate"]["phase"] == "InProgress"

    for case in ("rollout-in-progress", "rollout-completes"):
        case_input = load_input("graph", case)
        case_input["dgd"]["status"] = started
        passed = derive(case_input)
        assert passed["rollingUpdate"]["startTime"] == started["rollingUpdate"]["startTime"]

    assert passed["rollingUpdate"]["phase"] == "Completed"
    assert passed["rollingUpdate"]["endTime"] == "2025-03-01T12:00:00Z"
    written, again = written_then_derived_again("rollout-completes", timedelta(days=2))
    assert again == written


def test_a_rolling_update_phase_change_is_written_at_once() -> None:
    """A planner holds its scaling while the phase is InProgress: the change that ends it is
    never held back as mere progress, even while another service keeps the graph pending."""
    case_input = load_input("graph", "rollout-completes")
    old = case_input["dgd"]["status"]
    frontend = case_input["dcds"][0]
    frontend["metadata"]["generation"] = 2  # the frontend still rolling out: graph pending
    new = derive(case_input)

    assert new["state"] == old["state"] == "pending"
    assert (old["rollingUpdate"]["phase"], new["rollingUpdate"]["phase"]) == (
        "InProgress",
        "Completed",
    )
    assert not is_progress_only(old, new)


def test_the_same_rolling_update_with_new_counts_is_still_progress() -> None:
    old = pending("Resources not ready: w: 0 of 2 replicas available", ready=0)
    new = pending("Resources not ready: w: 1 of 2 replicas available", ready=1)
    rolling = {"phase": "InProgress", "startTime": "2026-11-23T10:00:00Z"}
    old["rollingUpdate"] = new["rollingUpdate"] = rolling

    assert is_progress_only(old, new)
