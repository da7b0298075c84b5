"""Review builders and a scripted validator for the webhook tests (not a test module)."""

from __future__ import annotations

import uuid
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


def make_review(
    obj: Mapping[str, Any] | None,
    *,
    operation: str = "CREATE",
    old: Mapping[str, Any] | None = None,
    kind: str | None = None,
    uid: str | None = None,
) -> dict[str, Any]:
    """An AdmissionReview as the apiserver sends it for ``obj``."""
    kind = kind or (obj or old or {}).get("kind", "DynamoGraphDeployment")
    request: dict[str, Any] = {
        "uid": uid or str(uuid.uuid4()),
        "kind": {"group": "nvidia.com", "version": "v1alpha1", "kind": kind},
        "resource": {"group": "nvidia.com", "version": "v1alpha1", "resource": "x"},
        "operation": operation,
        "name": "demo",
        "namespace": "default",
        "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
        "object": obj,
        "oldObject": old,
        "dryRun": False,
    }
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}
