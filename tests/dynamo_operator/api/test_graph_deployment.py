from typing import Any

import pytest
from pydantic import ValidationError

from dynamo_operator.api import (
    API_VERSION,
    MAX_PVCS,
    MAX_SERVICES,
    BackendFramework,
    DynamoGraphDeployment,
    GraphDeploymentState,
    RollingUpdatePhase,
)


def graph(spec: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "disagg", "namespace": "llm"},
        "spec": spec,
        **extra,
    }


def error_locations(error: ValidationError) -> list[tuple[int | str, ...]]:
    return [tuple(detail["loc"]) for detail in error.errors()]


def test_parses_camel_case_wire_form_into_snake_case_attributes() -> None:
    parsed = DynamoGraphDeployment.model_validate(
        graph(
            {
                "backendFramework": "vllm",
                "envs": [{"name": "GLOBAL", "value": "1"}],
                "services": {
                    "VllmWorker": {
                        "componentType": "worker",
                        "envFromSecret": "hf-token",
                        "extraPodSpec": {"mainContainer": {"image": "vllm:1"}},
                    }
                },
            }
        )
    )

    worker = parsed.spec.services["VllmWorker"]
    assert parsed.spec.backend_framework is BackendFramework.VLLM
    assert worker.component_type == "worker"
    assert worker.env_from_secret == "hf-token"
    assert worker.extra_pod_spec is not None
    assert worker.extra_pod_spec.main_container == {"image": "vllm:1"}


def test_round_trip_keeps_camel_case_and_unknown_fields() -> None:
    wire = graph(
        {
            "backendFramework": "sglang",
            "futureField": {"kept": True},
            "services": {
                "Frontend": {
                    "componentType": "frontend",
                    "replicas": 2,
                    "pvc": {"name": "legacy", "mountPath": "/models"},
                    "livenessProbe": {"httpGet": {"path": "/health", "port": "http"}},
                    "extraPodSpec": {
                        "nodeSelector": {"gpu": "h100"},
                        "tolerations": [{"key": "gpu", "operator": "Exists"}],
                        "mainContainer": {"image": "dynamo:1", "args": ["--x"]},
                    },
                    "multinode": {"nodeCount": 4},
                }
            },
        },
        status={"state": "pending", "somethingNew": 1},
    )
    wire["metadata"]["labels"] = {"team": "a"}
    wire["metadata"]["managedFields"] = [{"manager": "kubectl"}]

    assert DynamoGraphDeployment.model_validate(wire).to_wire() == wire


def test_dump_by_alias_contract_matches_to_wire() -> None:
    parsed = DynamoGraphDeployment.model_validate(graph({"services": {"A": {"replicas": 0}}}))

    assert parsed.model_dump(by_alias=True, exclude_none=True, mode="json") == parsed.to_wire()


def test_apply_defaults_for_kind_and_api_version_when_built_in_python() -> None:
    built = DynamoGraphDeployment.model_validate({"spec": {}})

    assert built.to_wire()["apiVersion"] == "nvidia.com/v1alpha1"
    assert built.to_wire()["kind"] == "DynamoGraphDeployment"
    assert built.spec.services == {}


def test_rejects_unknown_backend_framework() -> None:
    with pytest.raises(ValidationError) as caught:
        DynamoGraphDeployment.model_validate(graph({"backendFramework": "tensorflow"}))

    assert error_locations(caught.value) == [("spec", "backendFramework")]


def test_rejects_another_kind() -> None:
    with pytest.raises(ValidationError) as caught:
        DynamoGraphDeployment.model_validate({**graph({}), "kind": "DynamoModel"})

    assert error_locations(caught.value) == [("kind",)]


def test_requires_spec() -> None:
    with pytest.raises(ValidationError) as caught:
        DynamoGraphDeployment.model_validate({"kind": "DynamoGraphDeployment"})

    assert error_locations(caught.value) == [("spec",)]


def test_accepts_at_most_the_maximum_number_of_services() -> None:
    services: dict[str, dict[str, object]] = {f"s{i}": {} for i in range(MAX_SERVICES)}
    DynamoGraphDeployment.model_validate(graph({"services": services}))

    with pytest.raises(ValidationError) as caught:
        DynamoGraphDeployment.model_validate(graph({"services": {**services, "one-too-many": {}}}))
    assert error_locations(caught.value) == [("spec", "services")]


def test_accepts_at_most_the_maximum_number_of_pvcs() -> None:
    pvcs = [{"name": f"p{i}"} for i in range(MAX_PVCS)]
    DynamoGraphDeployment.model_validate(graph({"pvcs": pvcs}))

    with pytest.raises(ValidationError) as caught:
        DynamoGraphDeployment.model_validate(graph({"pvcs": [*pvcs, {"name": "extra"}]}))
    assert error_locations(caught.value) == [("spec", "pvcs")]


def test_reports_nested_service_errors_with_the_service_name_in_the_location() -> None:
    with pytest.raises(ValidationError) as caught:
        DynamoGraphDeployment.model_validate(graph({"services": {"Frontend": {"replicas": -1}}}))

    assert error_locations(caught.value) == [("spec", "services", "Frontend", "replicas")]


def test_status_state_is_a_closed_set() -> None:
    parsed = DynamoGraphDeployment.model_validate(graph({}, status={"state": "successful"}))
    assert parsed.status is not None
    assert parsed.status.state is GraphDeploymentState.SUCCESSFUL

    with pytest.raises(ValidationError):
        DynamoGraphDeployment.model_validate(graph({}, status={"state": "exploded"}))


def test_status_rolling_update_round_trips_and_its_phase_is_a_closed_set() -> None:
    rolling = {
        "phase": "Completed",
        "startTime": "2025-03-01T11:50:00Z",
        "endTime": "2025-03-01T12:00:00Z",
        "updatedServices": ["VllmDecodeWorker", "VllmPrefillWorker"],
    }
    wire = graph({"services": {}}, status={"state": "successful", "rollingUpdate": rolling})

    parsed = DynamoGraphDeployment.model_validate(wire)

    assert parsed.status is not None
    assert parsed.status.rolling_update is not None
    assert parsed.status.rolling_update.phase is RollingUpdatePhase.COMPLETED
    assert parsed.to_wire() == wire
    with pytest.raises(ValidationError) as caught:
        DynamoGraphDeployment.model_validate(graph({}, status={"rollingUpdate": {"phase": "Done"}}))
    assert error_locations(caught.value) == [("status", "rollingUpdate", "phase")]


def test_the_schema_offers_the_rolling_update_phases_a_planner_reads() -> None:
    schema = DynamoGraphDeployment.model_json_schema(by_alias=True)
    rolling = schema["$defs"]["RollingUpdateStatus"]["properties"]

    assert set(rolling) == {"phase", "startTime", "endTime", "updatedServices"}
    assert [phase.value for phase in RollingUpdatePhase] == [
        "Pending",
        "InProgress",
        "Completed",
        "Failed",
    ]
