import pytest

from dynamo_operator.api import DynamoComponent, DynamoGraphDeployment
from dynamo_operator.image_build import ArtifactExpansionError, build_graph_dynamo_component
from dynamo_operator.validation import validate_create


def graph(
    name: str, uid: str, artifact: str | None = "frontend:jh2o6dqzpsgfued4"
) -> DynamoGraphDeployment:
    return DynamoGraphDeployment.model_validate(
        {
            "metadata": {"name": name, "namespace": "llm", "uid": uid},
            "spec": {"dynamoComponent": artifact, "services": {}},
        }
    )


def test_a_graph_s_component_is_named_after_the_artifact_and_owned_by_the_graph() -> None:
    component = build_graph_dynamo_component(graph("llm-agg", "uid-1"), "default")

    assert component == {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponent",
        "metadata": {
            "name": "frontend--jh2o6dqzpsgfued4",
            "namespace": "llm",
            "ownerReferences": [
                {
                    "apiVersion": "nvidia.com/v1beta1",
                    "kind": "DynamoGraphDeployment",
                    "name": "llm-agg",
                    "uid": "uid-1",
                }
            ],
        },
        "spec": {"dynamoComponent": "frontend:jh2o6dqzpsgfued4"},
    }
    assert validate_create(component).allowed
    assert DynamoComponent.model_validate(component).spec.dynamo_component


def test_two_graphs_naming_one_artifact_share_its_component() -> None:
    first = build_graph_dynamo_component(graph("b-graph", "uid-b"), "default")
    shared = build_graph_dynamo_component(graph("a-graph", "uid-a"), "default", existing=first)
    again = build_graph_dynamo_component(graph("a-graph", "uid-a2"), "default", existing=shared)

    assert [owner["name"] for owner in shared["metadata"]["ownerReferences"]] == [
        "a-graph",
        "b-graph",
    ]
    assert [owner["uid"] for owner in again["metadata"]["ownerReferences"]] == ["uid-a2", "uid-b"]
    assert not any(owner.get("controller") for owner in again["metadata"]["ownerReferences"])


def test_a_graph_without_an_artifact_has_no_component() -> None:
    with pytest.raises(ArtifactExpansionError, match="names no artifact"):
        build_graph_dynamo_component(graph("g", "u", artifact=None), "default")
