from typing import Any

import pytest
from pydantic import ValidationError

from dynamo_operator.api import v1beta1

WIRE: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "agg"},
    "spec": {
        "backendFramework": "vllm",
        "env": [{"name": "HF_HOME", "value": "/cache"}],
        "components": [
            {
                "name": "VllmPrefillWorker",
                "type": "prefill",
                "replicas": 2,
                "scalingAdapter": {},
                "sharedMemorySize": "16Gi",
                "compilationCache": {"pvcName": "cache", "mountPath": "/cache/vllm"},
                "podTemplate": {
                    "metadata": {"labels": {"team": "a"}},
                    "spec": {"containers": [{"name": "main", "image": "vllm:1"}]},
                },
            }
        ],
    },
    "status": {
        "state": "successful",
        "components": {"VllmPrefillWorker": {"componentKind": "Deployment", "readyReplicas": 2}},
        "rollingUpdate": {"phase": "Completed", "updatedComponents": ["VllmPrefillWorker"]},
    },
}


def test_a_v1beta1_graph_round_trips_through_the_model() -> None:
    graph = v1beta1.DynamoGraphDeployment.model_validate(WIRE)

    assert graph.to_wire() == WIRE
    (worker,) = graph.spec.components
    assert worker.scaling_adapter is not None  # {} means enabled at v1beta1
    assert worker.pod_template == WIRE["spec"]["components"][0]["podTemplate"]


def test_a_new_graph_is_written_at_v1beta1() -> None:
    graph = v1beta1.DynamoGraphDeployment(spec=v1beta1.DynamoGraphDeploymentSpec())

    assert graph.to_wire()["apiVersion"] == "nvidia.com/v1beta1"
    assert graph.spec.components == []


@pytest.mark.parametrize(
    "component",
    [
        {"name": "under_score"},
        {"name": "-leading"},
        {"name": "x" * 64},
        {"name": "w", "type": "default"},
        {"type": "worker"},
    ],
    ids=["underscore", "leading-dash", "too-long", "alpha-only-type", "no-name"],
)
def test_component_names_and_types_are_refused_as_the_crd_refuses_them(
    component: dict[str, Any],
) -> None:
    with pytest.raises(ValidationError):
        v1beta1.Component.model_validate(component)


def test_more_than_25_components_are_refused() -> None:
    components = [{"name": f"c{i}"} for i in range(26)]

    with pytest.raises(ValidationError, match="at most 25"):
        v1beta1.DynamoGraphDeploymentSpec.model_validate({"components": components})
