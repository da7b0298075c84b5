from collections.abc import Iterator
from typing import Any

import pytest

from dynamo_operator.crd import build_crds, find_structural_violations

CRDS = {crd["spec"]["names"]["kind"]: crd for crd in build_crds()}


def version(kind: str) -> dict[str, Any]:
    versions: list[dict[str, Any]] = CRDS[kind]["spec"]["versions"]
    assert len(versions) == 1
    return versions[0]


def schema(kind: str) -> dict[str, Any]:
    root: dict[str, Any] = version(kind)["schema"]["openAPIV3Schema"]
    return root


def at(kind: str, *path: str) -> dict[str, Any]:
    node = schema(kind)
    for step in path:
        node = node["items"] if step == "[]" else node["properties"][step]
    return node


def walk_properties(node: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    for name, child in node.get("properties", {}).items():
        yield f"{path}.{name}", child
        yield from walk_properties(child, f"{path}.{name}")
    if isinstance(node.get("items"), dict):
        yield from walk_properties(node["items"], f"{path}[]")
    if isinstance(node.get("additionalProperties"), dict):
        yield from walk_properties(node["additionalProperties"], f"{path}.*")


KINDS = ["DynamoGraphDeployment", "DynamoComponentDeployment", "DynamoModel", "DynamoComponent"]


def test_one_crd_per_kind_in_the_nvidia_group() -> None:
    assert list(CRDS) == [*KINDS, "DynamoWorkerMetadata"]
    assert [crd["metadata"]["name"] for crd in CRDS.values()] == [
        "dynamographdeployments.nvidia.com",
        "dynamocomponentdeployments.nvidia.com",
        "dynamomodels.nvidia.com",
        "dynamocomponents.nvidia.com",
        "dynamoworkermetadatas.nvidia.com",
    ]


def test_worker_metadata_keeps_whatever_dynamo_publishes_and_has_no_status() -> None:
    """Dynamo's runtime applies `spec.data` in its own shape; a pruned field would be lost
    discovery information, and a status subresource would make its applies drop nothing but
    cost a second endpoint."""
    assert at("DynamoWorkerMetadata", "spec", "data") == {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "description": at("DynamoWorkerMetadata", "spec", "data")["description"],
    }
    assert "subresources" not in version("DynamoWorkerMetadata")
    assert CRDS["DynamoWorkerMetadata"]["spec"]["names"]["shortNames"] == ["dwm"]


@pytest.mark.parametrize(
    ("kind", "short_name"), list(zip(KINDS, ["dgd", "dcd", "dm", "dc"], strict=True))
)
def test_namespaced_served_stored_with_status_subresource_and_short_name(
    kind: str, short_name: str
) -> None:
    crd = CRDS[kind]

    assert crd["spec"]["scope"] == "Namespaced"
    assert crd["spec"]["names"]["shortNames"] == [short_name]
    assert version(kind)["name"] == "v1alpha1"
    assert version(kind)["served"] is True
    assert version(kind)["storage"] is True
    assert version(kind)["subresources"] == {"status": {}}


@pytest.mark.parametrize(
    ("kind", "columns"),
    [
        ("DynamoGraphDeployment", ["State", "Ready", "Backend", "Age"]),
        ("DynamoComponentDeployment", ["ComponentType", "Replicas", "Available", "Age"]),
        ("DynamoModel", ["BaseModel", "Type", "Ready", "Total", "Age"]),
    ],
)
def test_printer_columns(kind: str, columns: list[str]) -> None:
    assert [c["name"] for c in version(kind)["additionalPrinterColumns"]] == columns


def test_ready_column_reads_the_ready_condition() -> None:
    ready = version("DynamoGraphDeployment")["additionalPrinterColumns"][1]

    assert ready["jsonPath"] == '.status.conditions[?(@.type=="Ready")].status'


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_structural(kind: str) -> None:
    assert find_structural_violations(schema(kind)) == []


@pytest.mark.parametrize("kind", KINDS)
def test_every_field_has_a_description(kind: str) -> None:
    undescribed = [
        path for path, node in walk_properties(schema(kind)) if not node.get("description")
    ]

    # The API server forbids anything but a type on metadata; kubectl explains it from ObjectMeta.
    assert undescribed == [".metadata"]
    assert schema(kind)["properties"]["metadata"] == {"type": "object"}


def test_enums_bounds_and_defaults_come_from_the_models() -> None:
    service = at("DynamoGraphDeployment", "spec", "services")["additionalProperties"]

    assert at("DynamoGraphDeployment", "spec", "backendFramework")["enum"] == [
        "sglang",
        "vllm",
        "trtllm",
    ]
    assert at("DynamoGraphDeployment", "spec", "services")["maxProperties"] == 25
    assert at("DynamoGraphDeployment", "spec", "pvcs")["maxItems"] == 100
    assert service["properties"]["replicas"]["minimum"] == 0
    node_count = service["properties"]["multinode"]["properties"]["nodeCount"]
    assert (node_count["minimum"], node_count["default"]) == (2, 2)
    assert at("DynamoModel", "spec", "modelType")["default"] == "base"
    assert at("DynamoModel", "spec", "modelType")["enum"] == ["base", "lora", "adapter"]


def test_keyed_lists_are_list_maps() -> None:
    service = at("DynamoGraphDeployment", "spec", "services")["additionalProperties"]
    keyed = {
        "graph envs": at("DynamoGraphDeployment", "spec", "envs"),
        "service envs": service["properties"]["envs"],
        "dcd envs": at("DynamoComponentDeployment", "spec", "envs"),
        "dgd conditions": at("DynamoGraphDeployment", "status", "conditions"),
        "dcd conditions": at("DynamoComponentDeployment", "status", "conditions"),
        "dm conditions": at("DynamoModel", "status", "conditions"),
    }

    for where, node in keyed.items():
        assert node["x-kubernetes-list-type"] == "map", where
        key = node["x-kubernetes-list-map-keys"][0]
        assert key in node["items"]["required"], where


def test_pvc_create_rule_is_a_cel_validation() -> None:
    pvc = at("DynamoGraphDeployment", "spec", "pvcs", "[]")

    [rule] = pvc["x-kubernetes-validations"]
    assert "self.create" in rule["rule"]
    assert "volumeAccessMode" in rule["rule"]


def test_pod_spec_overrides_and_probes_preserve_unknown_fields() -> None:
    dcd_spec = at("DynamoComponentDeployment", "spec")["properties"]

    assert dcd_spec["extraPodSpec"]["x-kubernetes-preserve-unknown-fields"] is True
    main_container = dcd_spec["extraPodSpec"]["properties"]["mainContainer"]
    assert main_container["x-kubernetes-preserve-unknown-fields"] is True
    assert dcd_spec["livenessProbe"]["x-kubernetes-preserve-unknown-fields"] is True
    assert dcd_spec["readinessProbe"]["x-kubernetes-preserve-unknown-fields"] is True
