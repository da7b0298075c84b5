from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from dynamo_operator.api import DynamoComponent
from dynamo_operator.status import (
    BuildJobState,
    ImageObservation,
    Reasons,
    StatusFailure,
    derive_dynamo_component_status,
    derive_transition_event,
    dynamo_component_gate,
)
from dynamo_operator.status.dynamo_component import DYNAMO_COMPONENT_EVENTS, MAX_LOG_TAIL
from tests.dynamo_operator.status.golden import assert_no_unknown_fields

NOW = datetime(2025, 5, 1, 10, 0, tzinfo=UTC)
IMAGE = "registry:5000/dynamo-components:dynamo.frontend.v1"
JOB = "dynamo-image-builder-frontend--v1-0123456789"


def component(status: dict[str, Any] | None = None, generation: int = 2) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponent",
        "metadata": {"name": "frontend--v1", "namespace": "llm", "generation": generation},
        "spec": {"dynamoComponent": "frontend:v1"},
    }
    if status is not None:
        obj["status"] = status
    return obj


def conditions(status: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in status["conditions"]}


def derive(observation: ImageObservation, **kwargs: Any) -> dict[str, Any]:
    status = derive_dynamo_component_status(component(), observation, NOW, **kwargs)
    assert_no_unknown_fields(DynamoComponent.model_validate({**component(), "status": status}))
    return status


def test_an_existing_image_makes_the_component_available_without_a_build() -> None:
    status = derive(ImageObservation(IMAGE, image_exists=True))

    assert status["observedGeneration"] == 2
    assert status["image"] == IMAGE
    assert conditions(status) == {
        "DynamoComponentAvailable": ("True", "ImageFound", IMAGE),
        "ImageBuilding": ("False", "ImageFound", "the image exists; nothing to build"),
        "ImageExists": ("True", "ImageFound", IMAGE),
        "ImageExistsChecked": ("True", "ImageFound", IMAGE),
    }


def test_a_missing_image_is_built_step_by_step() -> None:
    missing = ImageObservation(IMAGE, image_exists=False)
    pending = ImageObservation(
        IMAGE, image_exists=False, job_name=JOB, job_state=BuildJobState.PENDING
    )
    active = ImageObservation(
        IMAGE, image_exists=False, job_name=JOB, job_state=BuildJobState.ACTIVE
    )
    built = ImageObservation(
        IMAGE, image_exists=False, job_name=JOB, job_state=BuildJobState.SUCCEEDED
    )

    assert conditions(derive(missing))["DynamoComponentAvailable"] == (
        "False",
        "ImageNotFound",
        f"a build of {IMAGE} is starting",
    )
    assert conditions(derive(missing))["ImageExistsChecked"] == ("True", "ImageNotFound", IMAGE)
    assert conditions(derive(pending))["ImageBuilding"] == (
        "False",
        "BuildPending",
        f"{JOB} is waiting for its pod",
    )
    assert conditions(derive(active))["ImageBuilding"] == (
        "True",
        "Building",
        f"{JOB} is building {IMAGE}",
    )
    assert conditions(derive(active))["DynamoComponentAvailable"][:2] == ("False", "Building")
    done = derive(built)
    assert done["image"] == IMAGE
    assert conditions(done)["ImageExists"] == ("True", "BuildSucceeded", IMAGE)
    assert conditions(done)["ImageBuilding"] == (
        "False",
        "BuildSucceeded",
        f"{JOB} built and pushed {IMAGE}",
    )
    assert conditions(done)["DynamoComponentAvailable"] == ("True", "BuildSucceeded", IMAGE)


def test_a_failed_build_says_why_with_the_builder_s_last_lines() -> None:
    log = '#7 ERROR: process "/bin/sh -c exit 3" did not complete successfully: exit code: 3'
    failed = ImageObservation(
        IMAGE,
        image_exists=False,
        job_name=JOB,
        job_state=BuildJobState.FAILED,
        job_message="BackoffLimitExceeded: Job has reached the specified backoff limit",
        log_tail="x" * 5000 + log,
    )

    status, reason, message = conditions(derive(failed))["DynamoComponentAvailable"]

    assert (status, reason) == ("False", "BuildFailed")
    assert message.startswith(f"{JOB} failed: BackoffLimitExceeded: Job has reached")
    assert message.endswith(log)
    assert len(message) < MAX_LOG_TAIL + 200
    assert "image" not in derive(failed)


def test_a_build_past_its_deadline_times_out() -> None:
    timed_out = ImageObservation(
        IMAGE, image_exists=False, job_name=JOB, job_state=BuildJobState.FAILED, timed_out=True
    )

    assert conditions(derive(timed_out))["ImageBuilding"] == (
        "False",
        "BuildTimedOut",
        f"{JOB} ran past the build timeout",
    )


def test_a_registry_that_cannot_answer_is_reported_not_guessed() -> None:
    unanswered = ImageObservation(IMAGE, registry_error="registry:5000: connection refused")
    unchecked = ImageObservation(IMAGE)

    assert conditions(derive(unanswered))["ImageExistsChecked"] == (
        "False",
        "RegistryCheckFailed",
        "registry:5000: connection refused",
    )
    assert conditions(derive(unanswered))["DynamoComponentAvailable"][:2] == (
        "False",
        "RegistryCheckFailed",
    )
    assert conditions(derive(unchecked))["ImageExists"][:2] == ("Unknown", "CheckingImage")


def test_a_given_image_is_available_as_is() -> None:
    status = derive(ImageObservation("mine/frontend:1", image_given=True))

    assert status["image"] == "mine/frontend:1"
    assert {name: value[:2] for name, value in conditions(status).items()} == {
        "DynamoComponentAvailable": ("True", "ImageGiven"),
        "ImageBuilding": ("False", "ImageGiven"),
        "ImageExists": ("True", "ImageGiven"),
        "ImageExistsChecked": ("False", "ImageGiven"),
    }


def test_a_failure_makes_it_unavailable_and_keeps_the_other_conditions() -> None:
    before = derive(ImageObservation(IMAGE, image_exists=True))
    failure = StatusFailure(Reasons.VALIDATION_FAILED, "Validation failed: spec.x: bad")

    status = derive_dynamo_component_status(
        component(before), None, NOW + timedelta(minutes=1), failure=failure
    )

    assert conditions(status)["DynamoComponentAvailable"] == (
        "False",
        "ValidationFailed",
        "Validation failed: spec.x: bad",
    )
    assert conditions(status)["ImageExists"] == conditions(before)["ImageExists"]
    assert "image" not in status
    with pytest.raises(ValueError, match="observation"):
        derive_dynamo_component_status(component(), None, NOW)


def test_deriving_again_from_the_same_world_changes_nothing() -> None:
    observation = ImageObservation(
        IMAGE, image_exists=False, job_name=JOB, job_state=BuildJobState.ACTIVE
    )
    first = derive(observation)

    again = derive_dynamo_component_status(component(first), observation, NOW + timedelta(hours=1))

    assert again == first


def test_the_transition_to_available_is_a_normal_event_and_a_failure_a_warning() -> None:
    building = derive(
        ImageObservation(IMAGE, image_exists=False, job_name=JOB, job_state=BuildJobState.ACTIVE)
    )
    built = derive(ImageObservation(IMAGE, job_name=JOB, job_state=BuildJobState.SUCCEEDED))
    failed = derive(
        ImageObservation(IMAGE, job_name=JOB, job_state=BuildJobState.FAILED, job_message="x")
    )

    assert derive_transition_event(building, built, DYNAMO_COMPONENT_EVENTS, failed=False) == (
        derive_transition_event(None, built, DYNAMO_COMPONENT_EVENTS, failed=False)
    )
    event = derive_transition_event(building, built, DYNAMO_COMPONENT_EVENTS, failed=False)
    assert event is not None
    assert (event.type, event.reason) == ("Normal", "BuildSucceeded")
    warning = derive_transition_event(building, failed, DYNAMO_COMPONENT_EVENTS, failed=True)
    assert warning is not None
    assert (warning.type, warning.reason) == ("Warning", "BuildFailed")


# --- the graph's gate ---------------------------------------------------------------------------


def test_a_graph_deploys_an_available_component_s_image() -> None:
    available = component(derive(ImageObservation(IMAGE, image_exists=True)))

    gate = dynamo_component_gate("frontend--v1", available)

    assert (gate.image, gate.waiting, gate.failure) == (IMAGE, None, None)


def test_a_graph_waits_and_says_for_which_component_and_why() -> None:
    building = component(
        derive(ImageObservation(IMAGE, job_name=JOB, job_state=BuildJobState.ACTIVE))
    )
    stale = component(derive(ImageObservation(IMAGE, image_exists=True)), generation=3)

    assert dynamo_component_gate("frontend--v1", None).waiting == (
        "DynamoComponent frontend--v1: not created yet"
    )
    assert dynamo_component_gate("frontend--v1", component()).waiting == (
        "DynamoComponent frontend--v1: not reconciled yet"
    )
    assert dynamo_component_gate("frontend--v1", stale).waiting == (
        "DynamoComponent frontend--v1: not reconciled yet"
    )
    assert dynamo_component_gate("frontend--v1", building).waiting == (
        f"DynamoComponent frontend--v1: {JOB} is building {IMAGE}"
    )


def test_a_failed_build_fails_the_graph_naming_the_component() -> None:
    failed = component(
        derive(
            ImageObservation(
                IMAGE,
                job_name=JOB,
                job_state=BuildJobState.FAILED,
                log_tail="COPY failed: file not found",
            )
        )
    )

    gate = dynamo_component_gate("frontend--v1", failed)

    assert gate.image is None
    assert gate.failure == StatusFailure(
        "DynamoComponentNotReady",
        f"DynamoComponent frontend--v1: {JOB} failed; last log lines: COPY failed: file not found",
    )
