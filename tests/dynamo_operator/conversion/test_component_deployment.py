"""Component deployments: the component inline, name from serviceName or metadata.name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from dynamo_operator.conversion import ALPHA_API_VERSION, BETA_API_VERSION, convert
from dynamo_operator.validation import validate_create

FIXTURES = Path(__file__).parents[2] / "fixtures" / "conversion"


def _dcd(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": ALPHA_API_VERSION,
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "g-frontend"},
        "spec": spec,
    }


def test_without_service_name_the_name_is_the_object_name_and_comes_back_absent() -> None:
    alpha = _dcd({"componentType": "frontend", "backendFramework": "vllm"})
    beta = convert(alpha, BETA_API_VERSION)
    assert beta["spec"] == {"name": "g-frontend", "type": "frontend", "backendFramework": "vllm"}
    assert "nvidia.com/dcd-spec" in beta["metadata"]["annotations"]
    assert convert(beta, ALPHA_API_VERSION) == alpha
    beta["spec"]["name"] = "Renamed"
    assert convert(beta, ALPHA_API_VERSION)["spec"]["serviceName"] == "Renamed"


def test_alpha_only_fields_are_kept() -> None:
    alpha = _dcd({"serviceName": "F", "dynamoComponent": "llm:v1", "dynamoTag": "graphs.agg:F"})
    beta = convert(alpha, BETA_API_VERSION)
    assert beta["spec"] == {"name": "F"}
    assert convert(beta, ALPHA_API_VERSION) == alpha


def test_the_golden_pair_converts_both_ways_and_is_valid() -> None:
    alpha = yaml.safe_load((FIXTURES / "worker-dcd.v1alpha1.yaml").read_text())
    beta = yaml.safe_load((FIXTURES / "worker-dcd.v1beta1.yaml").read_text())
    assert convert(alpha, BETA_API_VERSION) == beta
    assert convert(beta, ALPHA_API_VERSION) == alpha
    assert validate_create(convert(beta, ALPHA_API_VERSION)).errors == ()
