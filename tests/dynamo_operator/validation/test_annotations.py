from __future__ import annotations

from typing import Any

from dynamo_operator.validation import validate_create

STRATEGY = "nvidia.com/deployment-strategy"
SURGE = "nvidia.com/deployment-rolling-update-max-surge"
UNAVAILABLE = "nvidia.com/deployment-rolling-update-max-unavailable"


def graph(service: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "llm"},
        "spec": {"services": {"W": {"componentType": "worker", **service}}},
    }


def test_a_bad_rollout_value_is_refused_naming_the_annotation_and_why() -> None:
    result = validate_create(graph({"annotations": {SURGE: "half"}}))

    assert [str(issue) for issue in result.errors] == [
        f"spec.services.W.annotations.{SURGE}: 'half' is neither a whole number of pods nor a "
        "percentage (e.g. 1 or 25%)"
    ]


def test_an_unknown_strategy_is_refused_with_the_ones_there_are() -> None:
    result = validate_create(graph({"annotations": {STRATEGY: "recreate"}}))

    assert [str(issue) for issue in result.errors] == [
        f"spec.services.W.annotations.{STRATEGY}: 'recreate' is not a rollout strategy: use "
        "RollingUpdate, Recreate, RampedSlowRollout, BestEffortControlledRollout"
    ]


def test_the_annotation_is_named_in_extra_pod_metadata_when_it_comes_from_there() -> None:
    pod_annotations = {SURGE: "0", UNAVAILABLE: "0"}
    service = {"annotations": {SURGE: "1"}, "extraPodMetadata": {"annotations": pod_annotations}}

    result = validate_create(graph(service))

    assert [issue.path for issue in result.errors] == [
        f"spec.services.W.extraPodMetadata.annotations.{UNAVAILABLE}"
    ]
    assert "both 0" in result.errors[0].message


def test_a_standalone_component_deployment_is_checked_too() -> None:
    dcd = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "w", "namespace": "llm"},
        "spec": {"annotations": {STRATEGY: "Recreate", SURGE: "1"}},
    }

    result = validate_create(dcd)

    assert result.allowed
    assert [str(issue) for issue in result.warnings] == [
        f"spec.annotations.{SURGE}: ignored: the strategy is Recreate"
    ]
