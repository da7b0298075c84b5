"""The base model's headless Service, shared by the components serving it, and the pod labels
that put their pods behind it (the render golden case `model-ref-shared-service` shows it all)."""

from __future__ import annotations

from typing import Any

from dynamo_operator.builders import (
    BuildContext,
    build_component_children,
    build_model_service_owners,
    build_shared_model_service,
)
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.model_service import build_model_service
from manager.runtime.client import find_difference

from .factories import IMAGE, component, context, dcd_model

QWEN = "Qwen/Qwen3-0.6B"
QWEN_HASH = "fb68f5a6"


def dcd(name: str, base_model: str | None, namespace: str = "ns", **metadata: Any) -> Any:
    spec = {"modelRef": {"name": base_model}} if base_model else {}
    return {
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}", **metadata},
        "spec": spec,
    }


def test_owners_are_every_component_serving_the_model_in_the_namespace() -> None:
    owners = build_model_service_owners(
        [
            dcd("g-prefill", QWEN),
            dcd("g-decode", QWEN),
            dcd("g-frontend", None),
            dcd("other", QWEN, namespace="elsewhere"),
            dcd("leaving", QWEN, deletionTimestamp="2026-01-01T00:00:00Z"),
        ]
    )

    assert owners == {
        ("ns", QWEN): (
            {
                "apiVersion": "nvidia.com/v1beta1",
                "kind": "DynamoComponentDeployment",
                "name": "g-decode",
                "uid": "uid-g-decode",
            },
            {
                "apiVersion": "nvidia.com/v1beta1",
                "kind": "DynamoComponentDeployment",
                "name": "g-prefill",
                "uid": "uid-g-prefill",
            },
        ),
        ("elsewhere", QWEN): (
            {
                "apiVersion": "nvidia.com/v1beta1",
                "kind": "DynamoComponentDeployment",
                "name": "other",
                "uid": "uid-other",
            },
        ),
    }


def test_the_service_is_headless_on_the_hash_label_and_owned_by_no_controller() -> None:
    service = build_shared_model_service(
        QWEN, "ns", build_model_service_owners([dcd("a", QWEN)])[("ns", QWEN)]
    )

    assert service["metadata"]["name"] == f"dynamo-model-{QWEN_HASH}"
    assert service["metadata"]["labels"] == {
        "nvidia.com/dynamo-base-model-hash": QWEN_HASH,
        "nvidia.com/managed-by": "dynamo-operator",
        "nvidia.com/selector": f"dynamo-model-{QWEN_HASH}",
    }
    assert service["metadata"]["annotations"] == {"nvidia.com/dynamo-base-model": QWEN}
    assert all("controller" not in owner for owner in service["metadata"]["ownerReferences"])
    assert service["spec"] == {
        "clusterIP": "None",
        "selector": {"nvidia.com/dynamo-base-model-hash": QWEN_HASH},
        "ports": [{"name": "system", "port": 9090, "targetPort": 9090, "protocol": "TCP"}],
    }


def test_the_service_matches_itself_as_the_api_server_returns_it() -> None:
    """The API server leaves a false `publishNotReadyAddresses` out (omitempty): a Service that
    spelled it out differed from its live copy for ever, so the operator wrote it again at every
    reconcile of every component serving the model (found by the chaos run's end checks)."""
    service = build_shared_model_service(
        QWEN, "ns", build_model_service_owners([dcd("a", QWEN)])[("ns", QWEN)]
    )
    served = {**service, "spec": {**service["spec"]}}
    if served["spec"].get("publishNotReadyAddresses") is False:
        del served["spec"]["publishNotReadyAddresses"]

    assert find_difference(service, served) is None


def test_every_serving_component_builds_the_same_service() -> None:
    prefill, decode = (
        dcd_model(name, modelRef={"name": QWEN}) for name in ("g-prefill", "g-decode")
    )
    shared = BuildContext(
        model_service_owners=build_model_service_owners([prefill.to_wire(), decode.to_wire()])
    )

    built = [
        build_model_service(Component.from_model(dcd, "ns"), shared) for dcd in (prefill, decode)
    ]

    assert built[0] is not None
    assert built[0] == built[1]
    assert [owner["name"] for owner in built[0]["metadata"]["ownerReferences"]] == [
        "g-decode",
        "g-prefill",
    ]


def test_a_component_the_index_does_not_know_yet_is_an_owner_all_the_same() -> None:
    service = build_model_service(component("g-worker", modelRef={"name": QWEN}), context())

    assert service is not None
    assert [owner["name"] for owner in service["metadata"]["ownerReferences"]] == ["g-worker"]


def test_no_model_ref_means_no_model_service_and_no_model_labels() -> None:
    children = build_component_children(
        dcd_model(componentType="worker", extraPodSpec={"mainContainer": {"image": IMAGE}}),
        context(),
    )

    assert children.model_service is None
    labels = children.workload[0]["spec"]["template"]["metadata"]["labels"]
    assert "nvidia.com/dynamo-base-model-hash" not in labels


def test_serving_pods_carry_the_hash_and_the_name_whatever_the_user_labels() -> None:
    children = build_component_children(
        dcd_model(
            componentType="worker",
            modelRef={"name": QWEN},
            extraPodMetadata={"labels": {"nvidia.com/dynamo-base-model-hash": "spoofed"}},
            extraPodSpec={"mainContainer": {"image": IMAGE}},
        ),
        context(),
    )

    metadata = children.workload[0]["spec"]["template"]["metadata"]
    assert metadata["labels"]["nvidia.com/dynamo-base-model-hash"] == QWEN_HASH
    assert metadata["annotations"]["nvidia.com/dynamo-base-model"] == QWEN
    assert [obj["kind"] for obj in children.objects()] == ["Deployment", "Service", "Service"]
    assert children.objects()[2] is children.model_service
