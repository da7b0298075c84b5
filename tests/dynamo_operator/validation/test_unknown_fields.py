from typing import Any

from dynamo_operator.validation import validate_create


def graph(services: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "llm"},
        "spec": {"services": services, **spec},
    }


def warning_paths(obj: dict[str, Any]) -> list[str]:
    result = validate_create(obj)
    assert result.allowed
    return [issue.path for issue in result.warnings]


def test_unknown_fields_are_reported_at_every_depth_in_a_stable_order() -> None:
    obj = graph(
        {
            "Worker": {
                "componentType": "worker",
                "pvc": {"name": "legacy"},
                "multinode": {"nodeCount": 2, "gpusPerNode": 8},
                "volumeMounts": [{"name": "cache", "mountPoint": "/c", "readOnly": True}],
            }
        },
        pvcs=[{"name": "cache"}],
        rollout="fast",
    )

    # extras of an object first, then its declared fields in the order the API defines them
    assert warning_paths(obj) == [
        "spec.rollout",
        "spec.services.Worker.pvc",
        "spec.services.Worker.volumeMounts[0].readOnly",
        "spec.services.Worker.multinode.gpusPerNode",
    ]
    assert warning_paths(obj) == warning_paths(obj), "warnings come in a stable order"


def test_pod_spec_overrides_are_not_unknown_fields() -> None:
    obj = graph(
        {
            "Worker": {
                "extraPodSpec": {
                    "priorityClassName": "high",
                    "mainContainer": {"image": "dynamo:1", "workingDir": "/w"},
                }
            }
        }
    )

    assert warning_paths(obj) == []
