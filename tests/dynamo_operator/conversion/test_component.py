"""One service <-> one component: the field-by-field mapping of the contract."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.conversion.component import beta_type, to_component, to_service


@pytest.mark.parametrize(
    ("component_type", "sub_component_type", "expected"),
    [
        ("worker", "prefill", "prefill"),
        ("worker", "decode", "decode"),
        ("worker", None, "worker"),
        ("worker", "other", "worker"),
        ("prefill", None, "prefill"),
        ("frontend", None, "frontend"),
        ("planner", None, "planner"),
        ("epp", None, "epp"),
        ("main", None, None),
        ("default", None, None),
        (None, "prefill", None),
    ],
)
def test_component_types_map_as_the_contract_says(
    component_type: Any, sub_component_type: Any, expected: str | None
) -> None:
    assert beta_type(component_type, sub_component_type) == expected


def test_prefill_and_decode_come_back_as_worker_sub_types() -> None:
    assert to_service({"type": "decode"}, {}) == {
        "componentType": "worker",
        "subComponentType": "decode",
    }
    assert to_service({"type": "frontend"}, {}) == {"componentType": "frontend"}


@pytest.mark.parametrize(
    ("adapter", "expected"),
    [({"enabled": True}, {}), ({"enabled": False}, None), ({}, None)],
)
def test_the_scaling_adapter_is_present_only_when_enabled(adapter: Any, expected: Any) -> None:
    assert to_component("W", {"scalingAdapter": adapter}).get("scalingAdapter") == expected
    assert to_service({"scalingAdapter": {}}, {}) == {"scalingAdapter": {"enabled": True}}


@pytest.mark.parametrize(
    ("shared_memory", "size"),
    [
        ({"size": "16Gi"}, "16Gi"),
        ({"disabled": True}, "0"),
        ({"disabled": True, "size": "1Gi"}, "0"),
    ],
)
def test_shared_memory_becomes_a_size_and_zero_disables_it(shared_memory: Any, size: str) -> None:
    assert to_component("W", {"sharedMemory": shared_memory})["sharedMemorySize"] == size
    assert to_service({"sharedMemorySize": "0"}, {}) == {"sharedMemory": {"disabled": True}}
    assert to_service({"sharedMemorySize": "4Gi"}, {}) == {"sharedMemory": {"size": "4Gi"}}


def test_the_first_compilation_cache_mount_becomes_compilation_cache() -> None:
    service = {
        "volumeMounts": [
            {"name": "data", "mountPoint": "/data"},
            {"name": "cache", "mountPoint": "/cache", "useAsCompilationCache": True},
        ]
    }
    component = to_component("W", service)
    assert component["compilationCache"] == {"pvcName": "cache", "mountPath": "/cache"}
    assert component["podTemplate"]["spec"]["containers"] == [
        {"name": "main", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}
    ]


def test_the_pod_template_holds_pod_metadata_pod_spec_and_sidecars_after_main() -> None:
    service = {
        "extraPodMetadata": {"labels": {"a": "b"}},
        "extraPodSpec": {
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": "side", "image": "s"}],
            "mainContainer": {"image": "m"},
        },
    }
    template = to_component("W", service)["podTemplate"]
    assert template == {
        "metadata": {"labels": {"a": "b"}},
        "spec": {
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": "main", "image": "m"}, {"name": "side", "image": "s"}],
        },
    }
    assert to_service({"podTemplate": template}, {}) == service


def test_pod_template_metadata_other_than_labels_and_annotations_stays_out_of_alpha() -> None:
    service = to_service({"podTemplate": {"metadata": {"name": "x", "labels": {"a": "b"}}}}, {})
    assert service == {"extraPodMetadata": {"labels": {"a": "b"}}}
