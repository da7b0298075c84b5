"""A scripted validator, a denial and the webhook paths for the webhook tests (not a test module;
the reviews themselves come from ``e2e.support.admission_reviews``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dynamo_operator.validation.result import FieldIssue, IssueReason, ValidationResult


@dataclass
class ScriptedValidator:
    """Returns the results it is given and records what it was asked, to test the HTTP layer."""

    create_result: ValidationResult = field(default_factory=ValidationResult)
    update_result: ValidationResult = field(default_factory=ValidationResult)
    calls: list[tuple[str, Mapping[str, Any], Mapping[str, Any] | None]] = field(
        default_factory=list
    )

    def validate_create(self, obj: Mapping[str, Any]) -> ValidationResult:
        self.calls.append(("create", obj, None))
        return self.create_result

    def validate_update(self, new: Mapping[str, Any], old: Mapping[str, Any]) -> ValidationResult:
        self.calls.append(("update", new, old))
        return self.update_result


DENIAL = ValidationResult(
    errors=(
        FieldIssue("spec.backendFramework", "is immutable", IssueReason.IMMUTABLE_FIELD_CHANGED),
        FieldIssue("spec.services.Frontend.replicas", "must be non-negative"),
    ),
    warnings=(FieldIssue("spec.services.Frontend.autoscaling", "is deprecated"),),
)


DGD_PATH = "/validate-nvidia-com-v1alpha1-dynamographdeployment"
DCD_PATH = "/validate-nvidia-com-v1alpha1-dynamocomponentdeployment"
MODEL_PATH = "/validate-nvidia-com-v1alpha1-dynamomodel"
