from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

import pytest

from dynamo_operator.api import DynamoComponentDeploymentStatus
from dynamo_operator.builders import BuildContext, MultinodeUnsupported, build_component_children
from dynamo_operator.settings import OperatorSettings
from dynamo_operator.status import (
    StatusFailure,
    derive_component_status,
    is_component_progress_only,
)
from tests.dynamo_operator.builders.factories import dcd_model
from tests.dynamo_operator.status.golden import (
    assert_no_unknown_fields,
    cases,
    check_golden,
    failure_of,
    load_input,
    now_of,
)

CASES = cases("component")


def derive(case_input: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    unsupported = case_input.get("unsupported")
    arguments: dict[str, Any] = {
        "pods": case_input.get("pods") or (),
        "unsupported": MultinodeUnsupported(**unsupported) if unsupported else None,
        "failure": failure_of(case_input),
    }
    return derive_component_status(
        case_input["dcd"],
        case_input.get("workloads") or (),
        overrides.pop("now", now_of(case_input)),
        **{**arguments, **overrides},
    )


@pytest.mark.parametrize("case", CASES)
def test_status_matches_golden(case: str) -> None:
    check_golden("component", case, derive(load_input("component", case)))


@pytest.mark.parametrize("case", CASES)
def test_status_fits_the_crd_schema(case: str) -> None:
    status = derive(load_input("component", case))
    model = DynamoComponentDeploymentStatus.model_validate(status)
    assert_no_unknown_fields(model)
    assert model.to_wire() == status


@pytest.mark.parametrize("case", CASES)
def test_deriving_again_from_the_written_status_changes_nothing(case: str) -> None:
    """At steady state the reconciler compares and writes nothing, however late it runs."""
    case_input = load_input("component", case)
    written = derive(case_input)
    case_input["dcd"]["status"] = written
    assert derive(case_input, now=now_of(case_input) + timedelta(hours=5)) == written


@pytest.mark.parametrize("case", CASES)
def test_derivation_never_mutates_its_input(case: str) -> None:
    case_input = load_input("component", case)
    pristine = copy.deepcopy(case_input)
    derive(case_input)
    assert case_input == pristine


def test_available_and_component_ready_carry_the_same_verdict() -> None:
    status = derive(load_input("component", "unschedulable"))
    available, component_ready = status["conditions"]
    assert (available["type"], component_ready["type"]) == ("Available", "DynamoComponentReady")
    assert {key: value for key, value in available.items() if key != "type"} == {
        key: value for key, value in component_ready.items() if key != "type"
    }


def test_unsupported_multinode_from_the_builders_reads_as_its_own_reason() -> None:
    dcd = dcd_model(componentType="worker", multinode={"nodeCount": 2})
    children = build_component_children(
        dcd, BuildContext(settings=OperatorSettings(available_apis=frozenset()))
    )
    case_input = load_input("component", "deployment-ready")
    status = derive_component_status(
        dcd.to_wire(), [], now_of(case_input), unsupported=children.unsupported
    )
    available = status["conditions"][0]
    assert available["status"] == "False"
    assert available["reason"] == "LeaderWorkerSetUnavailable"
    assert "LeaderWorkerSet API" in available["message"]
    assert status["service"]["componentKind"] == "LeaderWorkerSet"


def test_a_reconcile_error_is_reported_on_the_component() -> None:
    case_input = load_input("component", "deployment-ready")
    failure = StatusFailure.reconcile_error("applying Service prod/x: forbidden")
    status = derive(case_input, failure=failure)
    assert status["conditions"][0]["reason"] == "failed_to_reconcile_the_resources"
    assert status["conditions"][0]["message"] == "applying Service prod/x: forbidden"


def test_a_dcd_without_generation_gets_no_observed_generation() -> None:
    case_input = load_input("component", "deployment-ready")
    del case_input["dcd"]["metadata"]["generation"]
    status = derive(case_input)
    assert "observedGeneration" not in status
    assert all("observedGeneration" not in condition for condition in status["conditions"])


def ready_replicas(case_input: dict[str, Any], ready: int) -> dict[str, Any]:
    """The case's Deployment with `ready` of its 2 replicas ready (available when both are)."""
    changed = copy.deepcopy(case_input)
    status = changed["workloads"][0]["status"]
    status["readyReplicas"] = status["availableReplicas"] = ready
    if ready < 2:
        status["conditions"][0].update(status="False", reason="MinimumReplicasUnavailable")
    return changed


def test_an_unavailable_component_moving_forward_is_progress_only() -> None:
    case_input = load_input("component", "deployment-ready")
    none_ready = derive(ready_replicas(case_input, 0))
    case_input["dcd"]["status"] = none_ready
    one_ready = derive(ready_replicas(case_input, 1))
    assert one_ready != none_ready
    assert is_component_progress_only(none_ready, one_ready)


def test_becoming_available_or_a_new_generation_is_more_than_progress() -> None:
    case_input = load_input("component", "deployment-ready")
    one_ready = derive(ready_replicas(case_input, 1))
    case_input["dcd"]["status"] = one_ready
    assert not is_component_progress_only(one_ready, derive(ready_replicas(case_input, 2)))
    case_input["dcd"]["metadata"]["generation"] += 1
    assert not is_component_progress_only(one_ready, derive(ready_replicas(case_input, 1)))


def test_a_first_status_is_progress_until_the_component_is_available() -> None:
    case_input = load_input("component", "deployment-ready")
    assert is_component_progress_only(None, derive(ready_replicas(case_input, 1)))
    assert not is_component_progress_only(None, derive(ready_replicas(case_input, 2)))
