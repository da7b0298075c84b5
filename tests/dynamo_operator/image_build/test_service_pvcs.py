from typing import Any

import pytest

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.image_build import ArtifactExpansionError, expand_service_pvcs


def graph(services: dict[str, Any], **spec: Any) -> DynamoGraphDeployment:
    return DynamoGraphDeployment.model_validate(
        {"metadata": {"name": "llm-agg"}, "spec": {"services": services, **spec}}
    )


def test_a_graph_without_service_pvcs_is_returned_as_is() -> None:
    plain = graph({"Frontend": {"replicas": 1}})

    assert expand_service_pvcs(plain) is plain


def test_a_service_pvc_becomes_a_mount_and_a_created_claim_in_the_default_class() -> None:
    seed = graph(
        {
            "VllmWorker": {
                "volumeMounts": [{"name": "cache", "mountPoint": "/cache"}],
                "pvc": {"name": "vllm-model-storage", "mountPath": "/models", "size": "100Gi"},
            },
            "Other": {"pvc": {"name": "vllm-model-storage", "mountPath": "/m", "size": "1Gi"}},
        },
        pvcs=[{"name": "cache"}],
    )
    pristine = seed.to_wire()

    expanded = expand_service_pvcs(seed).to_wire()

    assert seed.to_wire() == pristine
    worker = expanded["spec"]["services"]["VllmWorker"]
    assert "pvc" not in worker
    assert worker["volumeMounts"] == [
        {"name": "cache", "mountPoint": "/cache", "useAsCompilationCache": False},
        {"name": "vllm-model-storage", "mountPoint": "/models", "useAsCompilationCache": False},
    ]
    assert expanded["spec"]["services"]["Other"]["volumeMounts"][0]["mountPoint"] == "/m"
    assert expanded["spec"]["pvcs"] == [
        {"name": "cache"},
        {
            "create": True,
            "name": "vllm-model-storage",
            "size": "100Gi",
            "volumeAccessMode": "ReadWriteOnce",
        },
    ]


def test_a_declared_claim_is_only_mounted_and_a_given_class_and_mode_are_kept() -> None:
    expanded = expand_service_pvcs(
        graph(
            {
                "A": {"pvc": {"name": "shared", "mountPath": "/s"}},
                "B": {
                    "pvc": {
                        "name": "fast",
                        "mountPath": "/f",
                        "size": "5Gi",
                        "storageClass": "ssd",
                        "volumeAccessMode": "ReadWriteMany",
                    }
                },
            },
            pvcs=[{"name": "shared"}],
        )
    ).to_wire()

    assert expanded["spec"]["pvcs"] == [
        {"name": "shared"},
        {
            "create": True,
            "name": "fast",
            "storageClass": "ssd",
            "size": "5Gi",
            "volumeAccessMode": "ReadWriteMany",
        },
    ]


def test_a_claim_to_create_without_a_size_is_an_error() -> None:
    with pytest.raises(ArtifactExpansionError, match=r"spec.services.A.pvc.size: required"):
        expand_service_pvcs(graph({"A": {"pvc": {"name": "data", "mountPath": "/d"}}}))
