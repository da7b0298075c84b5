from typing import Any

import pytest

from dynamo_operator.validation import IssueReason, validate_create, validate_update


def model(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoModel",
        "metadata": {"name": "m"},
        "spec": {"modelName": "my-lora", "baseModelName": "Qwen/Qwen3-0.6B", **spec},
    }


@pytest.mark.parametrize("uri", ["s3://bucket/lora", "hf://org/lora@main"])
def test_lora_from_a_supported_source_is_valid(uri: str) -> None:
    assert validate_create(model(modelType="lora", source={"uri": uri})).allowed


def test_base_model_needs_no_source() -> None:
    assert validate_create(model()).allowed


def test_lora_source_uri_must_not_be_empty() -> None:
    [error] = validate_create(model(modelType="lora", source={"uri": ""})).errors

    assert error.path == "spec.source.uri"


def test_blank_names_are_rejected() -> None:
    result = validate_create(model(modelName=" ", baseModelName=""))

    assert [(e.path, e.reason) for e in result.errors] == [
        ("spec.modelName", IssueReason.MISSING_REQUIRED_FIELD),
        ("spec.baseModelName", IssueReason.MISSING_REQUIRED_FIELD),
    ]


def test_model_type_and_base_model_are_immutable() -> None:
    result = validate_update(
        model(modelType="lora", baseModelName="other", source={"uri": "s3://b/l"}), model()
    )

    assert [e.path for e in result.errors] == ["spec.modelType", "spec.baseModelName"]
    assert all(e.reason is IssueReason.IMMUTABLE_FIELD_CHANGED for e in result.errors)


def test_spelling_out_the_default_model_type_is_not_a_change() -> None:
    assert validate_update(model(modelType="base"), model()).allowed
