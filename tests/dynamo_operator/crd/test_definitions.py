from collections.abc import Iterator
from typing import Any

import pytest

from dynamo_operator.crd import (
    CONVERTIBLE_RESOURCES,
    CUSTOM_RESOURCES,
    SCALING_RESOURCES,
    ConversionService,
    build_crds,
    find_structural_violations,
)

CRDS = {crd["spec"]["names"]["kind"]: crd for crd in build_crds()}
ADAPTER = "DynamoGraphDeploymentScalingAdapter"


def version(kind: str, name: str = "v1alpha1") -> dict[str, Any]:
    versions: list[dict[str, Any]] = CRDS[kind]["spec"]["versions"]
    (found,) = (v for v in versions if v["name"] == name)
    return found


def schema(kind: str, name: str = "v1alpha1") -> dict[str, Any]:
    root: dict[str, Any] = version(kind, name)["schema"]["openAPIV3Schema"]
    return root


def at(kind: str, *path: str, name: str = "v1alpha1") -> dict[str, Any]:
    node = schema(kind, name)
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
BETA_KINDS = ["DynamoGraphDeployment", "DynamoComponentDeployment", ADAPTER]
EVERY_SCHEMA = [
    *((kind, "v1alpha1") for kind in [*KINDS, ADAPTER]),
    *((kind, "v1beta1") for kind in BETA_KINDS),
]


def test_one_crd_per_kind_in_the_nvidia_group() -> None:
    assert list(CRDS) == [*KINDS, ADAPTER, "DynamoWorkerMetadata"]
    assert [crd["metadata"]["name"] for crd in CRDS.values()] == [
        "dynamographdeployments.nvidia.com",
        "dynamocomponentdeployments.nvidia.com",
        "dynamomodels.nvidia.com",
        "dynamocomponents.nvidia.com",
        "dynamographdeploymentscalingadapters.nvidia.com",
        "dynamoworkermetadatas.nvidia.com",
    ]


def test_the_operator_admits_and_reconciles_the_kinds_users_write_but_not_the_adapters() -> None:
    """An adapter is written by the operator and scaled through /scale: no webhook admits it."""
    assert [r.kind for r in CUSTOM_RESOURCES] == KINDS
    assert [r.kind for r in SCALING_RESOURCES] == [ADAPTER]


@pytest.mark.parametrize("kind", BETA_KINDS)
def test_served_at_both_versions_stored_at_v1alpha1(kind: str) -> None:
    """The operator reads and writes v1alpha1; v1beta1 is served through conversion."""
    versions = CRDS[kind]["spec"]["versions"]

    assert [(v["name"], v["served"], v["storage"]) for v in versions] == [
        ("v1alpha1", True, True),
        ("v1beta1", True, False),
    ]
    assert versions[0]["schema"] != versions[1]["schema"]
    assert all("status" in v["subresources"] for v in versions)


@pytest.mark.parametrize("kind", ["DynamoModel", "DynamoComponent", "DynamoWorkerMetadata"])
def test_single_version_kinds_need_no_conversion(kind: str) -> None:
    assert [v["name"] for v in CRDS[kind]["spec"]["versions"]] == ["v1alpha1"]
    assert "conversion" not in CRDS[kind]["spec"]


def test_multi_version_crds_call_the_conversion_webhook_of_the_operator() -> None:
    for kind in BETA_KINDS:
        assert CRDS[kind]["spec"]["conversion"] == {
            "strategy": "Webhook",
            "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {
                    "service": {
                        "namespace": "dynamo-system",
                        "name": "dynamo-operator-webhook-service",
                        "path": "/convert",
                        "port": 443,
                    }
                },
            },
        }
    assert [r.crd_name for r in CONVERTIBLE_RESOURCES] == [
        CRDS[kind]["metadata"]["name"] for kind in BETA_KINDS
    ]


def test_the_conversion_service_and_ca_are_whoever_installs_the_crds() -> None:
    crds = build_crds(ConversionService("ops", "my-webhook", 8443, ca_bundle_pem=b"PEM"))
    configs = [
        c["spec"]["conversion"]["webhook"]["clientConfig"]
        for c in crds
        if "conversion" in c["spec"]
    ]

    assert len(configs) == len(BETA_KINDS)
    for config in configs:
        assert config["service"] == {
            "namespace": "ops",
            "name": "my-webhook",
            "path": "/convert",
            "port": 8443,
        }
        assert config["caBundle"] == "UEVN"  # base64 of PEM


def test_scaling_adapters_scale_through_the_scale_subresource_at_both_versions() -> None:
    assert CRDS[ADAPTER]["spec"]["names"]["shortNames"] == ["dgdsa"]
    for name in ("v1alpha1", "v1beta1"):
        assert version(ADAPTER, name)["subresources"] == {
            "status": {},
            "scale": {
                "specReplicasPath": ".spec.replicas",
                "statusReplicasPath": ".status.replicas",
                "labelSelectorPath": ".status.selector",
            },
        }
    assert at(ADAPTER, "spec")["required"] == ["replicas", "dgdRef"]
    assert at(ADAPTER, "spec", "dgdRef")["required"] == ["name", "serviceName"]
    assert at(ADAPTER, "spec", "dgdRef", name="v1beta1")["required"] == ["name", "componentName"]
    assert at(ADAPTER, "status", "selector")["type"] == "string"
    assert at(ADAPTER, "status", "lastScaleTime")["format"] == "date-time"


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
    assert crd["spec"]["versions"][0] == version(kind)
    assert version(kind)["served"] is True
    assert version(kind)["storage"] is True
    assert version(kind)["subresources"] == {"status": {}}


@pytest.mark.parametrize(
    ("kind", "name", "columns"),
    [
        ("DynamoGraphDeployment", "v1alpha1", ["State", "Ready", "Backend", "Age"]),
        ("DynamoGraphDeployment", "v1beta1", ["Ready", "Backend", "Age"]),
        (
            "DynamoComponentDeployment",
            "v1alpha1",
            ["ComponentType", "Replicas", "Available", "Age"],
        ),
        ("DynamoComponentDeployment", "v1beta1", ["Type", "Replicas", "Available", "Age"]),
        ("DynamoModel", "v1alpha1", ["BaseModel", "Type", "Ready", "Total", "Age"]),
        (ADAPTER, "v1alpha1", ["DGD", "Service", "Replicas", "Age"]),
        (ADAPTER, "v1beta1", ["DGD", "Component", "Replicas", "Age"]),
    ],
)
def test_printer_columns(kind: str, name: str, columns: list[str]) -> None:
    assert [c["name"] for c in version(kind, name)["additionalPrinterColumns"]] == columns


@pytest.mark.parametrize(
    ("kind", "name", "column", "path"),
    [
        ("DynamoComponentDeployment", "v1beta1", "Type", ".spec.type"),
        (ADAPTER, "v1alpha1", "Service", ".spec.dgdRef.serviceName"),
        (ADAPTER, "v1beta1", "Component", ".spec.dgdRef.componentName"),
        (ADAPTER, "v1beta1", "Replicas", ".spec.replicas"),
    ],
)
def test_printer_columns_read_the_field_of_their_version(
    kind: str, name: str, column: str, path: str
) -> None:
    (found,) = (c for c in version(kind, name)["additionalPrinterColumns"] if c["name"] == column)
    assert found["jsonPath"] == path


@pytest.mark.parametrize(("name", "index"), [("v1alpha1", 1), ("v1beta1", 0)])
def test_ready_column_reads_the_ready_condition(name: str, index: int) -> None:
    ready = version("DynamoGraphDeployment", name)["additionalPrinterColumns"][index]

    assert ready["jsonPath"] == '.status.conditions[?(@.type=="Ready")].status'


@pytest.mark.parametrize(("kind", "name"), EVERY_SCHEMA)
def test_schema_is_structural(kind: str, name: str) -> None:
    assert find_structural_violations(schema(kind, name)) == []


@pytest.mark.parametrize(("kind", "name"), EVERY_SCHEMA)
def test_every_field_has_a_description(kind: str, name: str) -> None:
    undescribed = [
        path for path, node in walk_properties(schema(kind, name)) if not node.get("description")
    ]

    # The API server forbids anything but a type on metadata; kubectl explains it from ObjectMeta.
    assert undescribed == [".metadata"]
    assert schema(kind, name)["properties"]["metadata"] == {"type": "object"}


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


def test_v1beta1_graph_lists_components_as_a_bounded_list_map_with_cel_rules() -> None:
    components = at("DynamoGraphDeployment", "spec", "components", name="v1beta1")
    rules = {rule["message"]: rule["rule"] for rule in components["x-kubernetes-validations"]}

    assert components["type"] == "array"
    assert components["maxItems"] == 25
    assert components["x-kubernetes-list-type"] == "map"
    assert components["x-kubernetes-list-map-keys"] == ["name"]
    assert "lowerAscii()" in rules["component names must be unique ignoring case"]
    assert "'epp'" in rules["at most one component may have type epp"]
    assert "services" not in at("DynamoGraphDeployment", "spec", name="v1beta1")["properties"]


@pytest.mark.parametrize(
    ("kind", "path"),
    [
        ("DynamoGraphDeployment", ("spec", "components", "[]")),
        ("DynamoComponentDeployment", ("spec",)),
    ],
)
def test_v1beta1_component_type_is_immutable_once_set_and_name_a_dns_label(
    kind: str, path: tuple[str, ...]
) -> None:
    component = at(kind, *path, name="v1beta1")
    (rule,) = component["x-kubernetes-validations"]

    assert "oldSelf.type" in rule["rule"]
    assert rule["message"] == "type is immutable once set"
    assert "name" in component["required"]
    name = component["properties"]["name"]
    assert (name["minLength"], name["maxLength"]) == (1, 63)
    assert name["pattern"] == "^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$"
    assert component["properties"]["type"]["enum"] == [
        "frontend",
        "worker",
        "prefill",
        "decode",
        "planner",
        "epp",
    ]


def test_v1beta1_pod_template_is_free_form_and_scaling_adapter_an_empty_object() -> None:
    component = at("DynamoGraphDeployment", "spec", "components", "[]", name="v1beta1")
    properties = component["properties"]

    assert properties["podTemplate"]["type"] == "object"
    assert properties["podTemplate"]["x-kubernetes-preserve-unknown-fields"] is True
    assert properties["scalingAdapter"]["type"] == "object"
    assert properties["scalingAdapter"]["properties"] == {}
    assert "x-kubernetes-preserve-unknown-fields" not in properties["scalingAdapter"]
    assert properties["sharedMemorySize"]["x-kubernetes-int-or-string"] is True
    assert properties["compilationCache"]["required"] == ["pvcName"]


def test_v1beta1_status_names_components() -> None:
    status = at("DynamoGraphDeployment", "status", name="v1beta1")["properties"]
    dcd_status = at("DynamoComponentDeployment", "status", name="v1beta1")["properties"]

    assert "components" in status
    assert "services" not in status
    assert "updatedComponents" in status["rollingUpdate"]["properties"]
    assert "component" in dcd_status
    assert "service" not in dcd_status
