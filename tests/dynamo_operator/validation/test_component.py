from typing import Any

import pytest

from dynamo_operator.validation import (
    IssueReason,
    validate_create,
    validate_manifest,
    validate_update,
)


def component(spec: dict[str, Any], name: str = "frontend--jh2o6dqzpsgfued4") -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponent",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": spec,
    }


def errors(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(issue.path, issue.message) for issue in validate_manifest(obj).errors]


def test_the_seed_example_is_valid() -> None:
    result = validate_create(component({"dynamoComponent": "frontend:jh2o6dqzpsgfued4"}))

    assert result.allowed
    assert result.warnings == ()


def test_a_fully_specified_component_is_valid() -> None:
    assert (
        errors(
            component(
                {
                    "dynamoComponent": "frontend:v1",
                    "downloadUrl": "https://store/a.tar",
                    "imageBuildTimeout": "1h30m",
                    "buildArgs": ["A=1", "PROXY"],
                    "imageBuilderExtraPodSpec": {"nodeSelector": {"pool": "build"}},
                    "imagePullSecrets": [{"name": "pull"}],
                    "dockerConfigJsonSecretName": "push",
                }
            )
        )
        == []
    )


@pytest.mark.parametrize(
    ("spec", "path", "message"),
    [
        ({"dynamoComponent": "frontend"}, "spec.dynamoComponent", "has no ':version'"),
        ({"dynamoComponent": "frontend:"}, "spec.dynamoComponent", "has an empty version"),
        ({"dynamoComponent": "Front:v1"}, "spec.dynamoComponent", "invalid name 'Front'"),
        ({"dynamoComponent": "a:v1", "imageBuildTimeout": "soon"}, "spec.imageBuildTimeout",
         "'soon' is not a duration such as 90s"),
        ({"dynamoComponent": "a:v1", "imageBuildTimeout": "0s"}, "spec.imageBuildTimeout",
         "'0s' must be more than zero"),
        ({"dynamoComponent": "a:v1", "image": " "}, "spec.image", "must not be empty when set"),
        ({"dynamoComponent": "a:v1", "downloadUrl": "store/a.tar"}, "spec.downloadUrl",
         "must be an http(s):// URL"),
        ({"dynamoComponent": "a:v1", "buildArgs": ["=1"]}, "spec.buildArgs[0]",
         "must be KEY=VALUE"),
        ({"dynamoComponent": "a:v1", "imageBuilderExtraPodSpec": {"containers": []}},
         "spec.imageBuilderExtraPodSpec.containers", "is set by the operator"),
    ],
)  # fmt: skip
def test_a_bad_spec_is_refused_at_its_field(spec: dict[str, Any], path: str, message: str) -> None:
    [(where, why)] = errors(component(spec))

    assert where == path
    assert message in why


def test_the_artifact_is_required_and_typed() -> None:
    assert errors(component({})) == [("spec.dynamoComponent", "required field is missing")]
    assert errors(component({"dynamoComponent": "a:v1", "buildArgs": "A=1"}))[0][0] == (
        "spec.buildArgs"
    )


def test_the_name_must_label_the_builder_s_pods() -> None:
    [issue] = validate_manifest(component({"dynamoComponent": "a:v1"}, name="a" * 64)).errors

    assert issue.path == "metadata.name"
    assert issue.reason is IssueReason.INVALID_NAME
    assert "it labels the image builder's Job and pods" in issue.message


def test_an_unknown_field_is_refused_in_a_manifest() -> None:
    assert errors(component({"dynamoComponent": "a:v1", "imageBuilderPodSpec": {}})) == [
        (
            "spec.imageBuilderPodSpec",
            "unknown field; the API server rejects it (or drops it when field validation is off)",
        )
    ]


def test_any_spec_change_is_allowed_on_update() -> None:
    old = component({"dynamoComponent": "frontend:v1"})
    new = component({"dynamoComponent": "frontend:v2", "image": "mine:2"})

    assert validate_update(new, old).allowed


# --- graphs and component deployments naming an artifact -----------------------------------------


def graph(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "llm-agg", "namespace": "llm"},
        "spec": spec,
    }


def test_a_graph_naming_an_artifact_may_leave_its_services_to_it() -> None:
    assert errors(graph({"dynamoComponent": "frontend:jh2o6dqzpsgfued4"})) == []
    assert errors(graph({})) == [("spec.services", "must have at least one service")]


def test_a_graph_s_artifact_must_be_a_reference_naming_a_valid_component() -> None:
    [(path, message)] = errors(graph({"dynamoComponent": "frontend"}))
    assert (path, "has no ':version'" in message) == ("spec.dynamoComponent", True)

    [(path, message)] = errors(graph({"dynamoComponent": "graphs_agg:v1"}))
    assert path == "spec.dynamoComponent"
    assert "'graphs_agg--v1' must be a DNS-1123 label" in message


def test_a_component_deployment_s_artifact_is_checked_too() -> None:
    dcd = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "llm-agg-frontend", "namespace": "llm"},
        "spec": {"dynamoComponent": "frontend", "dynamoTag": "graphs.agg:Frontend"},
    }

    assert [path for path, _ in errors(dcd)] == ["spec.dynamoComponent"]
