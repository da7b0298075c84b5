"""A v1beta1 object goes through the v1alpha1 rules too, on its conversion, and every issue comes
back at the v1beta1 field the user wrote; the parsed model is the v1alpha1 one reconcilers use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_operator.api import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_operator.conversion import convert
from dynamo_operator.validation import validate_create, validate_manifest, validate_update

FIXTURES = Path(__file__).parents[2] / "fixtures" / "conversion"
TWINS = sorted(path.name.removesuffix(".v1beta1.yaml") for path in FIXTURES.glob("*.v1beta1.yaml"))
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0"


def load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load((FIXTURES / name).read_text())
    return document


def component(name: str, **main: Any) -> dict[str, Any]:
    container = {"name": "main", "image": IMAGE, **main}
    return {"name": name, "podTemplate": {"spec": {"containers": [container]}}}


def graph(*components: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "agg", "namespace": "default"},
        "spec": {"components": list(components), **spec},
    }


def errors(obj: dict[str, Any]) -> list[str]:
    return [str(issue) for issue in validate_manifest(obj).errors]


@pytest.mark.parametrize("twin", TWINS)
def test_each_v1beta1_example_is_valid_and_parses_as_its_v1alpha1_twin(twin: str) -> None:
    beta, alpha = load(f"{twin}.v1beta1.yaml"), load(f"{twin}.v1alpha1.yaml")
    model = (
        DynamoGraphDeployment
        if beta["kind"] == "DynamoGraphDeployment"
        else (DynamoComponentDeployment)
    )

    beta_result, alpha_result = validate_manifest(beta), validate_manifest(alpha)

    assert (beta_result.errors, beta_result.warnings) == ((), ())
    assert beta_result.model(model) == alpha_result.model(model)


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (
            graph(component("Frontend"), component("worker", env=[{"name": "A"}, {"name": ""}])),
            "spec.components[1].podTemplate.spec.containers[0].env[1].name: an environment "
            "variable name must not be empty",
        ),
        (
            graph(component("worker", resources={"limits": {"cpu": "lots"}})),
            "spec.components[0].podTemplate.spec.containers[0].resources.limits.cpu: must be a "
            "quantity such as 2, 500m or 8Gi (got 'lots')",
        ),
        (
            graph(
                component("worker", command=["python3", "-m", "dynamo.sglang"]),
                backendFramework="vllm",
            ),
            "spec.components[0].podTemplate.spec.containers[0]: launches dynamo.sglang but "
            "backendFramework is vllm",
        ),
        (
            graph(component("x" * 63)),
            "spec.components[0]: generated name 'agg-" + "x" * 63 + "' is 67 characters; at "
            "most 63 allowed",
        ),
        (
            graph(
                {**component("worker"), "compilationCache": {"pvcName": "c"}},
                backendFramework="sglang",
            ),
            "spec.components[0].compilationCache.mountPath: required for a compilation cache "
            "with the sglang backend (only vLLM has a default path)",
        ),
    ],
    ids=["container-env", "main-resources", "backend-launched", "generated-name", "cache-path"],
)
def test_v1alpha1_rules_report_at_the_v1beta1_field(obj: dict[str, Any], expected: str) -> None:
    assert errors(obj) == [expected]


def test_an_issue_found_by_both_rule_sets_is_reported_once_in_v1beta1_words() -> None:
    """Names differing by case are a duplicate at v1beta1 and a colliding generated name at
    v1alpha1: the user hears the first; an empty list is 'no component', not 'no service'."""
    assert [e.split(":")[0] for e in errors(graph(component("Worker"), component("worker")))] == [
        "spec.components[1].name"
    ]
    assert errors(graph()) == ["spec.components: must have at least one component"]


def test_a_graph_built_from_an_artifact_needs_no_component_nor_image() -> None:
    """v1alpha1's dynamoComponent travels in an annotation at v1beta1; its image is built."""
    alpha = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "agg", "namespace": "default"},
        "spec": {"dynamoComponent": "graph:v1", "services": {"Frontend": {"replicas": 2}}},
    }
    beta = convert(alpha, "nvidia.com/v1beta1")

    assert beta["spec"]["components"] == [{"name": "Frontend", "replicas": 2}]
    assert errors(beta) == []


def test_the_parsed_model_is_the_v1alpha1_one_reconcilers_build_from() -> None:
    result = validate_create(graph(component("Frontend"), env=[{"name": "A", "value": "1"}]))

    model = result.model(DynamoGraphDeployment)
    assert list(model.spec.services) == ["Frontend"]
    assert [env.name for env in model.spec.envs or []] == ["A"]


def test_an_old_object_at_the_other_version_is_converted_before_the_update_rules() -> None:
    old = convert(graph({**component("w"), "type": "prefill"}), "nvidia.com/v1alpha1")
    new = graph({**component("w"), "type": "decode"})

    assert [str(e) for e in validate_update(new, old).errors] == [
        "spec.components[0].type: is immutable once set (was 'prefill', now 'decode')"
    ]


def test_a_v1alpha1_update_of_a_v1beta1_old_object_keeps_the_v1alpha1_rules() -> None:
    old = graph({**component("w"), "multinode": {"nodeCount": 2}}, backendFramework="vllm")
    new = convert(old, "nvidia.com/v1alpha1")
    new["spec"]["backendFramework"] = "sglang"
    del new["spec"]["services"]["w"]["multinode"]

    assert [str(e) for e in validate_update(new, old).errors] == [
        "spec.backendFramework: is immutable (was 'vllm', now 'sglang')",
        "spec.services.w.multinode: cannot change node topology from multinode to single-node "
        "after creation; delete and recreate the service",
    ]


@pytest.mark.parametrize(
    ("kind", "spec", "served"),
    [
        (
            "DynamoGraphDeployment",
            {"services": {"a": {}}},
            "nvidia.com/v1alpha1 or nvidia.com/v1beta1",
        ),
        ("DynamoModel", {"modelName": "a", "baseModelName": "a"}, "nvidia.com/v1alpha1"),
    ],
)
def test_another_version_is_refused_naming_the_versions_served(
    kind: str, spec: dict[str, Any], served: str
) -> None:
    for version in ("nvidia.com/v2", "nvidia.com/v1beta1" if kind == "DynamoModel" else "v1"):
        obj = {"apiVersion": version, "kind": kind, "metadata": {"name": "a"}, "spec": spec}
        assert f"apiVersion: must be {served} (got {version!r})" in errors(obj)
