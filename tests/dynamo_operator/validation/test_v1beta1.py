"""The rules of the v1beta1 shape, through the public entry points: every message names the
v1beta1 field the user wrote."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dynamo_operator.validation import (
    IssueReason,
    validate_create,
    validate_manifest,
    validate_update,
)

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0"


def component(name: str, type_: str | None = None, **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name}
    if type_ is not None:
        entry["type"] = type_
    entry["podTemplate"] = {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}
    entry.update(fields)
    return entry


def graph(*components: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "agg", "namespace": "default"},
        "spec": {"backendFramework": "vllm", "components": list(components), **spec},
    }


def dcd(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "agg-worker", "namespace": "default"},
        "spec": {"backendFramework": "vllm", **component("worker", "worker"), **spec},
    }


def errors(obj: dict[str, Any]) -> list[str]:
    return [str(issue) for issue in validate_manifest(obj).errors]


def test_a_graph_of_well_formed_components_is_valid() -> None:
    assert errors(graph(component("Frontend", "frontend"), component("worker", "worker"))) == []


def test_component_names_are_unique_ignoring_case() -> None:
    """Children are named after the lowercased name: Worker and worker would be one DCD."""
    result = validate_manifest(
        graph(component("Frontend"), component("Worker"), component("worker"))
    )

    assert [str(issue) for issue in result.errors] == [
        "spec.components[2].name: duplicate component name 'worker': spec.components[1] is "
        "'Worker' (component names are compared ignoring case)"
    ]
    assert result.errors[0].reason is IssueReason.INVALID_NAME


def test_an_exact_duplicate_name_is_reported_once_at_the_second_entry() -> None:
    found = errors(graph(component("worker"), component("worker")))

    assert [line.split(":")[0] for line in found] == ["spec.components[1].name"]


def test_at_most_one_component_is_an_endpoint_picker() -> None:
    found = errors(
        graph(component("epp-a", "epp"), component("Frontend"), component("epp-b", "epp"))
    )

    assert found == [
        "spec.components[2].type: at most one component may have type epp "
        "(spec.components[0] has it)"
    ]


@pytest.mark.parametrize(
    ("pod_template", "expected"),
    [
        (None, "spec.components[1].podTemplate.spec.containers"),
        ({"spec": {}}, "spec.components[1].podTemplate.spec.containers"),
        (
            {"spec": {"containers": [{"name": "sidecar", "image": IMAGE}]}},
            "spec.components[1].podTemplate.spec.containers",
        ),
    ],
    ids=["no-pod-template", "no-containers", "only-a-sidecar"],
)
def test_every_component_has_a_container_named_main(
    pod_template: dict[str, Any] | None, expected: str
) -> None:
    worker = component("worker", "worker")
    if pod_template is None:
        del worker["podTemplate"]
    else:
        worker["podTemplate"] = pod_template

    assert errors(graph(component("Frontend", "frontend"), worker)) == [
        f"{expected}: must have a container named main with an image"
    ]


@pytest.mark.parametrize("image", [None, "", "  "])
def test_the_main_container_has_an_image(image: str | None) -> None:
    main: dict[str, Any] = {"name": "main"} if image is None else {"name": "main", "image": image}
    worker = component(
        "worker", podTemplate={"spec": {"containers": [{"name": "log", "image": IMAGE}, main]}}
    )

    [line] = errors(graph(worker))

    assert line.startswith(
        "spec.components[0].podTemplate.spec.containers[1].image: must be set: the main "
        "container runs Dynamo"
    )


def test_a_component_deployment_needs_its_main_container_too() -> None:
    assert errors(
        dcd(podTemplate={"spec": {"containers": [{"name": "Main", "image": IMAGE}]}})
    ) == ["spec.podTemplate.spec.containers: must have a container named main with an image"]


def test_schema_errors_name_v1beta1_fields() -> None:
    found = errors(
        graph(
            component("Frontend", "gateway"),
            component("bad_name"),
            component("w", replicas=-1),
        )
    )

    assert [line.split(":")[0] for line in found] == [
        "spec.components[0].type",
        "spec.components[1].name",
        "spec.components[2].replicas",
    ]


def test_v1alpha1_spellings_are_unknown_fields_at_v1beta1() -> None:
    obj = graph(component("worker", componentType="worker"), services={})

    assert errors(obj) == [
        "spec.components[0].componentType: unknown field; the API server rejects it (or drops "
        "it when field validation is off)",
        "spec.services: unknown field; the API server rejects it (or drops it when field "
        "validation is off)",
    ]
    # An object the API server has decoded: only a warning, as at v1alpha1.
    result = validate_create(obj)
    assert result.allowed
    assert [issue.path for issue in result.warnings] == [
        "spec.components[0].componentType",
        "spec.services",
    ]


def test_the_scaling_adapter_marker_is_an_empty_object() -> None:
    assert errors(graph(component("worker", scalingAdapter={}))) == []
    assert [
        line.split(":")[0]
        for line in errors(graph(component("w", scalingAdapter={"enabled": True})))
    ] == ["spec.components[0].scalingAdapter.enabled"]


# -- updates ---------------------------------------------------------------------------------


def updated(old: dict[str, Any], edit: Any) -> list[str]:
    new = copy.deepcopy(old)
    edit(new)
    return [str(issue) for issue in validate_update(new, old).errors]


def test_a_component_type_is_immutable_once_set() -> None:
    old = graph(component("Frontend", "frontend"), component("worker", "prefill"))

    def retype(new: dict[str, Any]) -> None:
        new["spec"]["components"][1]["type"] = "decode"

    def untype(new: dict[str, Any]) -> None:
        del new["spec"]["components"][1]["type"]

    assert updated(old, retype) == [
        "spec.components[1].type: is immutable once set (was 'prefill', now 'decode')"
    ]
    assert updated(old, untype) == [
        "spec.components[1].type: is immutable once set (was 'prefill', now None)"
    ]


def test_a_type_may_be_set_where_there_was_none_and_components_may_move() -> None:
    old = graph(component("Frontend"), component("worker"))

    def set_type_and_reorder(new: dict[str, Any]) -> None:
        components = new["spec"]["components"]
        components[1]["type"] = "worker"
        components.reverse()

    assert updated(old, set_type_and_reorder) == []


def test_update_rules_keep_parity_with_v1alpha1() -> None:
    """The same edits v1alpha1 refuses (backend, single-node <-> multinode), at v1beta1 paths;
    adding and removing components stays allowed, as adding and removing services is."""
    old = graph(component("Frontend"), component("worker", multinode={"nodeCount": 2}))

    def edit(new: dict[str, Any]) -> None:
        new["spec"]["backendFramework"] = "sglang"
        new["spec"]["components"][1].pop("multinode")

    def add_and_remove(new: dict[str, Any]) -> None:
        new["spec"]["components"][0] = component("router")

    assert updated(old, edit) == [
        "spec.backendFramework: is immutable (was 'vllm', now 'sglang')",
        "spec.components[1].multinode: cannot change node topology from multinode to "
        "single-node after creation; delete and recreate the component",
    ]
    assert updated(old, add_and_remove) == []


def test_component_deployment_type_and_backend_are_immutable() -> None:
    old = dcd()

    def edit(new: dict[str, Any]) -> None:
        new["spec"]["type"] = "frontend"
        new["spec"]["backendFramework"] = "trtllm"

    assert updated(old, edit) == [
        "spec.backendFramework: is immutable (was 'vllm', now 'trtllm')",
        "spec.type: is immutable once set (was 'worker', now 'frontend')",
    ]
