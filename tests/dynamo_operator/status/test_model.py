"""DynamoModel status, case by case: conditions, counts and endpoints from what was found."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from dynamo_operator.api import DynamoModelStatus
from dynamo_operator.status import EndpointState, StatusFailure, derive_model_status
from dynamo_operator.validation import FieldIssue, ValidationResult
from tests.dynamo_operator.status.golden import assert_no_unknown_fields

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
READY = EndpointState("http://10.0.0.1:9090", "w-1", ready=True)
FAILED = EndpointState("http://10.0.0.2:9090", "w-2", ready=False, message="HTTP 500: boom")


def model(model_type: str = "lora", **status: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoModel",
        "metadata": {"name": "m", "namespace": "ns", "generation": 3},
        "spec": {
            "modelName": "adapter",
            "baseModelName": "Qwen/Qwen3-0.6B",
            "modelType": model_type,
            "source": {"uri": "s3://bucket/adapter"},
        },
        **({"status": status} if status else {}),
    }


def conditions(status: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in status["conditions"]}


@pytest.mark.parametrize(
    ("model_type", "endpoints", "services", "endpoints_ready", "counts"),
    [
        (
            "lora",
            [],
            [],
            ("False", "NoEndpoints", "No endpoints found for base model Qwen/Qwen3-0.6B"),
            (0, 0),
        ),
        (
            "lora",
            [],
            ["dynamo-model-fb68f5a6"],
            ("False", "NoEndpoints", "No ready endpoints found for base model Qwen/Qwen3-0.6B"),
            (0, 0),
        ),
        (
            "lora",
            [READY],
            ["dynamo-model-fb68f5a6"],
            ("True", "AllEndpointsReady", "LoRA loaded on all 1 endpoint(s)"),
            (1, 1),
        ),
        (
            "lora",
            [READY, FAILED],
            ["dynamo-model-fb68f5a6"],
            ("False", "NotReady", "LoRA loaded on 1 of 2 endpoint(s)"),
            (1, 2),
        ),
        (
            "base",
            [READY],
            ["dynamo-model-fb68f5a6"],
            ("True", "EndpointsDiscovered", "Found 1 endpoint(s) for base model"),
            (1, 1),
        ),
    ],
)
def test_conditions_and_counts(
    model_type: str,
    endpoints: list[EndpointState],
    services: list[str],
    endpoints_ready: tuple[str, str, str],
    counts: tuple[int, int],
) -> None:
    status = derive_model_status(model(model_type), endpoints, services, NOW)

    services_found = (
        ("True", "ServicesFound", f"Found {len(services)} service(s)")
        if services
        else ("False", "NoServicesFound", "No EndpointSlices found for base model Qwen/Qwen3-0.6B")
    )
    assert conditions(status) == {
        "EndpointsReady": endpoints_ready,
        "ServicesFound": services_found,
    }
    assert (status["readyEndpoints"], status["totalEndpoints"]) == counts
    assert status["observedGeneration"] == 3
    assert all(c["observedGeneration"] == 3 for c in status["conditions"])


def test_each_endpoint_is_listed_with_its_state() -> None:
    status = derive_model_status(model(), [READY, FAILED], ["svc"], NOW)

    assert status["endpoints"] == [
        {"address": "http://10.0.0.1:9090", "podName": "w-1", "ready": True},
        {
            "address": "http://10.0.0.2:9090",
            "podName": "w-2",
            "ready": False,
            "message": "HTTP 500: boom",
        },
    ]
    assert "endpoints" not in derive_model_status(model(), [], [], NOW)


def test_an_invalid_spec_is_reported_on_endpoints_ready() -> None:
    failure = StatusFailure.invalid(
        ValidationResult(errors=(FieldIssue("spec.source", "required when modelType is lora"),))
    )
    status = derive_model_status(model(), [], [], NOW, failure=failure)

    ready, reason, message = conditions(status)["EndpointsReady"]
    assert (ready, reason) == ("False", "ValidationFailed")
    assert "spec.source" in message


def test_the_status_fits_the_crd_schema() -> None:
    status = derive_model_status(model(), [READY, FAILED], ["svc"], NOW)

    parsed = DynamoModelStatus.model_validate(status)
    assert_no_unknown_fields(parsed)
    assert parsed.to_wire() == status


def test_deriving_again_later_changes_nothing_and_keeps_transition_times() -> None:
    written = derive_model_status(model(), [READY, FAILED], ["svc"], NOW)
    again = derive_model_status(
        model(**copy.deepcopy(written)), [READY, FAILED], ["svc"], NOW + timedelta(hours=1)
    )
    assert again == written

    recovered = derive_model_status(
        model(**written), [READY, READY], ["svc"], NOW + timedelta(hours=2)
    )
    times = {c["type"]: c["lastTransitionTime"] for c in recovered["conditions"]}
    assert times == {
        "EndpointsReady": "2026-01-02T05:04:05Z",
        "ServicesFound": "2026-01-02T03:04:05Z",
    }
