import pytest
from pydantic import ValidationError

from dynamo_operator.api import DynamoModel, ModelType


def test_model_type_defaults_to_base() -> None:
    parsed = DynamoModel.model_validate(
        {"spec": {"modelName": "Qwen/Qwen3-0.6B", "baseModelName": "Qwen/Qwen3-0.6B"}}
    )

    assert parsed.spec.model_type is ModelType.BASE
    assert parsed.to_wire()["spec"]["modelType"] == "base"


def test_lora_with_source_round_trips() -> None:
    wire = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoModel",
        "metadata": {"name": "my-lora"},
        "spec": {
            "modelName": "my-lora",
            "baseModelName": "Qwen/Qwen3-0.6B",
            "modelType": "lora",
            "source": {"uri": "hf://org/my-lora@main"},
        },
        "status": {
            "endpoints": [{"address": "http://10.0.1.5:9090", "podName": "w-0", "ready": True}],
            "readyEndpoints": 1,
            "totalEndpoints": 1,
        },
    }

    assert DynamoModel.model_validate(wire).to_wire() == wire


def test_model_and_base_model_names_are_required() -> None:
    with pytest.raises(ValidationError) as caught:
        DynamoModel.model_validate({"spec": {}})

    assert sorted(e["loc"] for e in caught.value.errors()) == [
        ("spec", "baseModelName"),
        ("spec", "modelName"),
    ]


def test_model_type_is_a_closed_set() -> None:
    with pytest.raises(ValidationError):
        DynamoModel.model_validate(
            {"spec": {"modelName": "a", "baseModelName": "b", "modelType": "full"}}
        )
