from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_operator.crd import CUSTOM_RESOURCES
from dynamo_operator.field_paths import PathPart, join_path
from dynamo_operator.validation.unknown_fields import find_unknown_fields

GENERATED_CRDS = (
    Path(__file__).resolve().parents[3] / "deploy" / "helm" / "dynamo-operator-crds" / "generated"
)
GRAPH = "DynamoGraphDeployment"
PRESERVE = "x-kubernetes-preserve-unknown-fields"


def graph(services: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": GRAPH,
        "metadata": {"name": "g", "namespace": "llm"},
        "spec": {"services": services, **spec},
    }


def test_unknown_fields_are_reported_at_every_depth_in_the_order_they_are_written() -> None:
    obj = graph(
        {
            "Worker": {
                "componentType": "worker",
                "pvc": {"name": "legacy", "mountPoint": "/m"},
                "multinode": {"nodeCount": 2, "gpusPerNode": 8},
                "volumeMounts": [{"name": "cache", "mountPoint": "/c", "readOnly": True}],
            }
        },
        pvcs=[{"name": "cache"}],
        rollout="fast",
    )
    obj["specs"] = {}  # a typo at the root

    assert find_unknown_fields(obj, GRAPH) == [
        "spec.services.Worker.pvc.mountPoint",
        "spec.services.Worker.multinode.gpusPerNode",
        "spec.services.Worker.volumeMounts[0].readOnly",
        "spec.rollout",
        "specs",
    ]


def test_pod_spec_overrides_probes_and_metadata_are_kubernetes_fields_not_ours() -> None:
    obj = graph(
        {
            "Worker": {
                "extraPodSpec": {
                    "priorityClassName": "high",
                    "mainContainer": {"image": "dynamo:1", "workingDir": "/w"},
                },
                "livenessProbe": {"grpc": {"port": 9000}},
                "envs": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}],
                "autoscaling": {"behavior": {"scaleDown": {}}, "metrics": [{"type": "Pods"}]},
            }
        }
    )
    obj["metadata"]["clusterName"] = "c"  # decoded as an ObjectMeta by the API server

    assert find_unknown_fields(obj, GRAPH) == []


def test_a_value_of_the_wrong_shape_is_left_to_the_type_check() -> None:
    obj = graph({"Worker": {"replicas": {"min": 1}, "envs": "A=1"}})

    assert find_unknown_fields(obj, GRAPH) == []


# --- against the CRDs the API server is given ---------------------------------------------------


def object_nodes(
    schema: dict[str, Any], parts: tuple[PathPart, ...] = ()
) -> Iterator[tuple[tuple[PathPart, ...], dict[str, Any]]]:
    """Every object node of a CRD schema, with the path of a value it describes (``x`` for a
    map's key, ``0`` for a list's item); the root's metadata is the API server's ObjectMeta."""
    if schema.get("type") == "object":
        yield parts, schema
    for name, child in schema.get("properties", {}).items():
        if parts or name != "metadata":
            yield from object_nodes(child, (*parts, name))
    if isinstance(schema.get("additionalProperties"), dict):
        yield from object_nodes(schema["additionalProperties"], (*parts, "x"))
    if isinstance(schema.get("items"), dict):
        yield from object_nodes(schema["items"], (*parts, 0))


def placed(parts: tuple[PathPart, ...], value: Any) -> Any:
    for part in reversed(parts):
        value = [value] if isinstance(part, int) else {part: value}
    return value


def generated_crds() -> list[dict[str, Any]]:
    """The deployed CRDs of the kinds users apply and the operator validates."""
    return [
        yaml.safe_load((GENERATED_CRDS / f"nvidia.com_{resource.plural}.yaml").read_text())
        for resource in CUSTOM_RESOURCES
    ]


@pytest.mark.parametrize("crd", generated_crds(), ids=lambda crd: crd["spec"]["names"]["kind"])
def test_a_field_is_unknown_exactly_where_the_generated_crd_would_prune_it(
    crd: dict[str, Any],
) -> None:
    kind = crd["spec"]["names"]["kind"]
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    preserved = []
    for parts, node in object_nodes(schema):
        obj = placed(parts, {"zzUnknown": 1})
        kept = node.get(PRESERVE) is True or "additionalProperties" in node

        reported = find_unknown_fields(obj, kind)

        assert reported == ([] if kept else [join_path("", *parts, "zzUnknown")]), parts
        if node.get(PRESERVE):
            preserved.append(join_path("", *parts))
    if kind == "DynamoComponent":
        assert {
            "spec.imageBuilderExtraPodSpec",
            "spec.imageBuilderContainerResources",
            "spec.downloaderContainerEnvFrom[0]",
            "spec.imageBuilderExtraContainerEnv[0].valueFrom",
        } == set(preserved)
    elif kind != "DynamoModel":
        service = "spec" if kind == "DynamoComponentDeployment" else "spec.services.x"
        assert {
            f"{service}.extraPodSpec",
            f"{service}.extraPodSpec.mainContainer",
            f"{service}.livenessProbe",
            f"{service}.readinessProbe",
            f"{service}.autoscaling.behavior",
            f"{service}.autoscaling.metrics[0]",
            f"{service}.envs[0].valueFrom",
        } <= set(preserved)
