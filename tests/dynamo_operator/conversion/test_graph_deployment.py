"""Graph conversion: golden pairs written in both versions, services <-> components."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings

from dynamo_operator.conversion import (
    ALPHA_API_VERSION,
    BETA_API_VERSION,
    PRESERVED_ANNOTATIONS,
    convert,
)
from dynamo_operator.validation import validate_create
from tests.dynamo_operator.conversion.strategies import ROUND_TRIPS, beta_graphs

FIXTURES = Path(__file__).parents[2] / "fixtures" / "conversion"
PAIRS = sorted(
    path.name.removesuffix(".v1alpha1.yaml") for path in FIXTURES.glob("*.v1alpha1.yaml")
)


def _load(name: str, version: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((FIXTURES / f"{name}.{version}.yaml").read_text())
    return loaded


def test_there_are_golden_pairs() -> None:
    assert len(PAIRS) >= 5


@pytest.mark.parametrize("name", PAIRS)
def test_each_alpha_example_converts_to_its_beta_twin_and_back(name: str) -> None:
    alpha, beta = _load(name, "v1alpha1"), _load(name, "v1beta1")
    assert convert(alpha, BETA_API_VERSION) == beta
    assert convert(beta, ALPHA_API_VERSION) == alpha


@pytest.mark.parametrize("name", PAIRS)
def test_the_examples_are_valid_and_need_no_preservation_annotation(name: str) -> None:
    alpha = _load(name, "v1alpha1")
    assert validate_create(alpha).errors == ()
    converted = convert(_load(name, "v1beta1"), ALPHA_API_VERSION)
    assert not set(converted["metadata"].get("annotations", {})) & set(PRESERVED_ANNOTATIONS)


@settings(ROUND_TRIPS, max_examples=60)
@given(graph=beta_graphs())
def test_a_valid_beta_graph_converts_to_a_valid_alpha_graph(graph: dict[str, Any]) -> None:
    result = validate_create(convert(graph, ALPHA_API_VERSION))
    assert result.errors == (), result.errors


def test_components_come_out_sorted_by_name_and_a_beta_order_is_kept() -> None:
    alpha = {
        "apiVersion": ALPHA_API_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"services": {"b": {"replicas": 1}, "A": {"replicas": 2}, "a": {}}},
    }
    beta = convert(alpha, BETA_API_VERSION)
    assert [c["name"] for c in beta["spec"]["components"]] == ["A", "a", "b"]
    assert "annotations" not in beta["metadata"]
    beta["spec"]["components"].reverse()
    again = convert(convert(beta, ALPHA_API_VERSION), BETA_API_VERSION)
    assert [c["name"] for c in again["spec"]["components"]] == ["b", "a", "A"]


def test_alpha_only_graph_fields_travel_in_the_annotation() -> None:
    alpha = {
        "apiVersion": ALPHA_API_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {
            "pvcs": [{"name": "models", "create": True, "size": "10Gi", "storageClass": "s",
                      "volumeAccessMode": "ReadWriteMany"}],
            "dynamoComponent": "llm:v1",
            "services": {"W": {"dynamoNamespace": "ns", "ingress": {"enabled": False}}},
        },
    }  # fmt: skip
    beta = convert(alpha, BETA_API_VERSION)
    assert set(beta["spec"]) == {"components"}
    assert beta["spec"]["components"] == [{"name": "W"}]
    assert "nvidia.com/dgd-spec" in beta["metadata"]["annotations"]
    assert convert(beta, ALPHA_API_VERSION) == alpha


def test_a_compilation_cache_of_a_beta_graph_declares_its_claim_at_alpha() -> None:
    beta = {
        "apiVersion": BETA_API_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {
            "backendFramework": "vllm",
            "components": [{"name": "W", "compilationCache": {"pvcName": "cache"}}],
        },
    }
    alpha = convert(beta, ALPHA_API_VERSION)
    assert alpha["spec"]["pvcs"] == [{"name": "cache", "create": False}]
    assert alpha["spec"]["services"]["W"]["volumeMounts"] == [
        {"name": "cache", "useAsCompilationCache": True}
    ]
    assert "annotations" not in alpha["metadata"]
    assert convert(alpha, BETA_API_VERSION) == beta
