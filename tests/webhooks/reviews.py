"""A scripted validator, a denial, the webhook paths and a stored graph for the webhook tests (not
a test module; the reviews themselves come from ``e2e.support.admission_reviews``)."""

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


def alpha_graph(
    name: str = "demo", uid: str = "u1", resource_version: str = "7", decode_replicas: int = 2
) -> dict[str, Any]:
    """A two-service graph at v1alpha1 as the API server stores it (no status), for `/convert`."""
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {
            "name": name,
            "namespace": "team-a",
            "uid": uid,
            "resourceVersion": resource_version,
        },
        "spec": {
            "backendFramework": "vllm",
            "services": {
                "Frontend": {"componentType": "frontend", "replicas": 1},
                "decode": {
                    "componentType": "worker",
                    "subComponentType": "decode",
                    "replicas": decode_replicas,
                    "extraPodSpec": {"mainContainer": {"image": "runtime:1", "args": ["--x"]}},
                },
            },
        },
    }
