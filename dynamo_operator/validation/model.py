"""Rules for DynamoModel: names present, LoRA sources loadable, identity immutable."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import DynamoModel, ModelType
from dynamo_operator.field_paths import describe
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.result import IssueReason
from dynamo_operator.validation.wire import differs, spec_of

SUPPORTED_SOURCE_SCHEMES = ("s3://", "hf://")
_IMMUTABLE_FIELDS = ("modelType", "baseModelName")


def validate_model(model: DynamoModel, issues: IssueCollector) -> None:
    spec = model.spec
    if not spec.model_name.strip():
        issues.error("spec.modelName", "must not be empty", IssueReason.MISSING_REQUIRED_FIELD)
    if not spec.base_model_name.strip():
        issues.error("spec.baseModelName", "must not be empty", IssueReason.MISSING_REQUIRED_FIELD)
    if spec.model_type is not ModelType.LORA:
        return
    if spec.source is None:
        issues.error(
            "spec.source", "required when modelType is lora", IssueReason.MISSING_REQUIRED_FIELD
        )
    elif not spec.source.uri:
        issues.error(
            "spec.source.uri", "required when modelType is lora", IssueReason.MISSING_REQUIRED_FIELD
        )
    elif not spec.source.uri.startswith(SUPPORTED_SOURCE_SCHEMES):
        issues.error(
            "spec.source.uri",
            f"'{spec.source.uri}' must start with s3:// or hf://",
        )


def validate_model_update(
    new: Mapping[str, Any], old: Mapping[str, Any], issues: IssueCollector
) -> None:
    new_spec, old_spec = spec_of(new), spec_of(old)
    for field in _IMMUTABLE_FIELDS:
        before, after = _with_default(old_spec, field), _with_default(new_spec, field)
        if differs(before, after):
            issues.error(
                f"spec.{field}",
                f"is immutable (was {describe(before)}, now {describe(after)})",
                IssueReason.IMMUTABLE_FIELD_CHANGED,
            )


def _with_default(spec: Mapping[str, Any], field: str) -> object:
    value = spec.get(field)
    if value is None and field == "modelType":
        return ModelType.BASE.value
    return value
