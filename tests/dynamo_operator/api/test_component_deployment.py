import pytest
from pydantic import ValidationError

from dynamo_operator.api import BackendFramework, DynamoComponentDeployment


def test_service_entry_fields_are_inline_in_the_spec() -> None:
    wire = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "disagg-frontend", "namespace": "llm"},
        "spec": {
            "backendFramework": "trtllm",
            "serviceName": "Frontend",
            "componentType": "frontend",
            "replicas": 3,
        },
        "status": {
            "conditions": [{"type": "Available", "status": "True", "reason": "Ready"}],
            "podSelector": {"app": "x"},
        },
    }

    parsed = DynamoComponentDeployment.model_validate(wire)

    assert parsed.spec.backend_framework is BackendFramework.TRTLLM
    assert parsed.spec.service_name == "Frontend"
    assert parsed.spec.effective_replicas == 3
    assert parsed.to_wire() == wire


def test_condition_status_must_be_true_false_or_unknown() -> None:
    with pytest.raises(ValidationError) as caught:
        DynamoComponentDeployment.model_validate(
            {"spec": {}, "status": {"conditions": [{"type": "Available", "status": "yes"}]}}
        )

    assert [e["loc"] for e in caught.value.errors()] == [("status", "conditions", 0, "status")]
