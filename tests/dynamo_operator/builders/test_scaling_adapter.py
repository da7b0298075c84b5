"""The adapters a graph wants, the merge patch that scales its service, and the adapter's status."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.builders import BuildContext
from dynamo_operator.builders.scaling_adapter import (
    build_scaling_adapters,
    derive_scaling_adapter_status,
    scaled_service,
    service_replicas_patch,
)
from dynamo_operator.validation import validate_create

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0"


def graph(name: str = "llm", **services: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": name, "namespace": "ns", "uid": "graph-uid"},
        "spec": {
            "backendFramework": "vllm",
            "services": {
                service_name: {
                    "extraPodSpec": {"mainContainer": {"image": IMAGE}},
                    **service,
                }
                for service_name, service in services.items()
            },
        },
    }


def adapters(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return build_scaling_adapters(DynamoGraphDeployment.model_validate(obj), BuildContext())


def adapter(
    replicas: int = 3, *, service: str = "VllmWorker", graph_uid: str = "graph-uid"
) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeploymentScalingAdapter",
        "metadata": {
            "name": f"llm-{service.lower()}",
            "namespace": "ns",
            "ownerReferences": [
                {
                    "apiVersion": "nvidia.com/v1beta1",
                    "kind": "DynamoGraphDeployment",
                    "name": "llm",
                    "uid": graph_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"replicas": replicas, "dgdRef": {"name": "llm", "serviceName": service}},
    }


ENABLED = {"scalingAdapter": {"enabled": True}}


def test_an_adapter_for_each_service_that_enables_one_seeded_with_its_replicas() -> None:
    built = adapters(
        graph(
            Frontend={"componentType": "frontend", "replicas": 2},
            VllmWorker={"componentType": "worker", "replicas": 4, **ENABLED},
        )
    )

    assert built == [
        {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoGraphDeploymentScalingAdapter",
            "metadata": {
                "name": "llm-vllmworker",
                "namespace": "ns",
                "labels": {
                    "nvidia.com/dynamo-component": "VllmWorker",
                    "nvidia.com/dynamo-graph-deployment-name": "llm",
                },
                "annotations": {},
                "ownerReferences": [
                    {
                        "apiVersion": "nvidia.com/v1beta1",
                        "kind": "DynamoGraphDeployment",
                        "name": "llm",
                        "uid": "graph-uid",
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "spec": {"replicas": 4, "dgdRef": {"name": "llm", "serviceName": "VllmWorker"}},
        }
    ]


@pytest.mark.parametrize(
    "scaling_adapter", [None, {}, {"enabled": False}], ids=["absent", "empty", "disabled"]
)
def test_no_adapter_unless_enabled_is_true(scaling_adapter: dict[str, Any] | None) -> None:
    service: dict[str, Any] = {"replicas": 2}
    if scaling_adapter is not None:
        service["scalingAdapter"] = scaling_adapter

    assert adapters(graph(VllmWorker=service)) == []


def test_services_without_replicas_seed_their_adapters_with_one_sorted_by_name() -> None:
    built = adapters(graph(Prefill=ENABLED, Decode=ENABLED, Frontend={}))

    assert [(a["metadata"]["name"], a["spec"]["replicas"]) for a in built] == [
        ("llm-decode", 1),
        ("llm-prefill", 1),
    ]


def test_enabled_must_be_a_boolean() -> None:
    refused = validate_create(graph(VllmWorker={"scalingAdapter": {"enabled": "yes"}}))

    assert not refused.allowed
    assert "spec.services.VllmWorker.scalingAdapter.enabled" in refused.summary()


def test_validation_refuses_a_graph_whose_adapter_name_is_too_long() -> None:
    refused = validate_create(graph("g" * 50, LongServiceNameWorker=ENABLED))

    assert not refused.allowed
    assert "'" + "g" * 50 + "-longservicenameworker' is 72 characters" in refused.summary()


def test_validation_refuses_two_services_whose_adapters_would_share_a_name() -> None:
    refused = validate_create(graph(Worker=ENABLED, worker=ENABLED))

    assert not refused.allowed
    assert "generates the same component name 'llm-worker'" in refused.summary()


def test_the_patch_writes_the_adapters_replicas_into_its_service_alone() -> None:
    live = graph(VllmWorker={"replicas": 1, **ENABLED}, Frontend={})

    assert service_replicas_patch(adapter(3), live) == {
        "metadata": {"uid": "graph-uid"},
        "spec": {"services": {"VllmWorker": {"replicas": 3}}},
    }


def test_no_patch_when_the_graph_already_has_the_adapters_replicas() -> None:
    assert service_replicas_patch(adapter(3), graph(VllmWorker={"replicas": 3, **ENABLED})) is None
    # Unset replicas mean one.
    assert service_replicas_patch(adapter(1), graph(VllmWorker=ENABLED)) is None


@pytest.mark.parametrize(
    ("live", "scaling"),
    [
        (graph(VllmWorker={"replicas": 1}), adapter()),
        (graph(VllmWorker={"replicas": 1, "scalingAdapter": {}}), adapter()),
        (graph(VllmWorker={"replicas": 1, "scalingAdapter": {"enabled": False}}), adapter()),
        (graph(Frontend=ENABLED), adapter()),
        (graph(VllmWorker=ENABLED), adapter(graph_uid="another-graph")),
        (graph("other", VllmWorker=ENABLED), adapter()),
        (None, adapter()),
    ],
    ids=[
        "flag-absent",
        "flag-empty",
        "flag-off",
        "service-gone",
        "not-controlled",
        "other-graph",
        "no-graph",
    ],
)
def test_an_adapter_scales_nothing_unless_its_graph_controls_it_and_the_flag_is_on(
    live: dict[str, Any] | None, scaling: dict[str, Any]
) -> None:
    assert scaled_service(scaling, live) is None
    assert service_replicas_patch(scaling, live) is None


def test_status_reports_the_replicas_and_the_pods_selector() -> None:
    status = derive_scaling_adapter_status(adapter(3))

    assert status == {
        "replicas": 3,
        "selector": "nvidia.com/dynamo-component=VllmWorker,"
        "nvidia.com/dynamo-graph-deployment-name=llm",
    }


def test_last_scale_time_is_when_a_value_was_written_and_kept_until_the_next() -> None:
    scaled = adapter(3)
    scaled["status"] = derive_scaling_adapter_status(
        scaled, scaled_at=datetime(2026, 3, 1, 12, 0, 5, tzinfo=UTC)
    )
    assert scaled["status"]["lastScaleTime"] == "2026-03-01T12:00:05Z"

    assert derive_scaling_adapter_status(scaled)["lastScaleTime"] == "2026-03-01T12:00:05Z"
    later = derive_scaling_adapter_status(scaled, scaled_at=datetime(2026, 3, 2, tzinfo=UTC))
    assert later["lastScaleTime"] == "2026-03-02T00:00:00Z"


def test_a_scale_time_written_since_the_adapter_was_read_is_kept() -> None:
    read = adapter(3)
    read["status"] = {"lastScaleTime": "2026-03-01T00:00:00Z"}

    status = derive_scaling_adapter_status(read, known_scale_time="2026-03-01T12:00:00Z")

    assert status["lastScaleTime"] == "2026-03-01T12:00:00Z"
    assert derive_scaling_adapter_status(read, known_scale_time="2026-02-01T00:00:00Z")[
        "lastScaleTime"
    ] == ("2026-03-01T00:00:00Z")
