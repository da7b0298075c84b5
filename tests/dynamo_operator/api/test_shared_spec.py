from typing import Any

import pytest
from pydantic import ValidationError

from dynamo_operator.api import (
    PVC,
    DynamoComponentDeploymentSharedSpec,
    VolumeMount,
    nodes_per_replica,
)


def service(**fields: Any) -> DynamoComponentDeploymentSharedSpec:
    return DynamoComponentDeploymentSharedSpec.model_validate(fields)


def test_multinode_node_count_defaults_to_two() -> None:
    parsed = service(multinode={})

    assert parsed.multinode is not None
    assert parsed.multinode.node_count == 2
    assert parsed.to_wire() == {"multinode": {"nodeCount": 2}}
    assert parsed.is_multinode


@pytest.mark.parametrize("node_count", [0, 1])
def test_multinode_node_count_below_two_is_rejected(node_count: int) -> None:
    with pytest.raises(ValidationError) as caught:
        service(multinode={"nodeCount": node_count})

    assert [e["loc"] for e in caught.value.errors()] == [("multinode", "nodeCount")]


def test_a_service_without_multinode_spans_one_node_and_one_replica() -> None:
    parsed = service()

    assert parsed.node_count == 1
    assert not parsed.is_multinode
    assert parsed.effective_replicas == 1


@pytest.mark.parametrize(
    ("multinode", "nodes"),
    [
        (None, 1),
        ({}, 2),
        ({"nodeCount": 4}, 4),
        ({"nodeCount": "4"}, 2),
        ({"nodeCount": True}, 2),
        ("not a block", 1),
    ],
)
def test_nodes_per_replica_reads_the_wire_form_as_the_model_does(
    multinode: Any, nodes: int
) -> None:
    assert nodes_per_replica(multinode) == nodes
    if multinode is None or multinode in ({}, {"nodeCount": 4}):
        assert service(multinode=multinode).node_count == nodes


def test_replicas_may_be_zero_but_not_negative() -> None:
    assert service(replicas=0).effective_replicas == 0

    with pytest.raises(ValidationError) as caught:
        service(replicas=-1)
    assert [e["loc"] for e in caught.value.errors()] == [("replicas",)]


def test_quantities_given_as_numbers_become_strings() -> None:
    parsed = service(
        resources={"limits": {"gpu": 2, "memory": "40Gi", "custom": {"rdma/ib": 1}}},
        sharedMemory={"size": "16Gi"},
    )

    assert parsed.resources is not None
    assert parsed.resources.limits is not None
    assert parsed.resources.limits.gpu == "2"
    assert parsed.resources.limits.custom == {"rdma/ib": "1"}


def test_boolean_is_not_a_quantity() -> None:
    with pytest.raises(ValidationError):
        service(resources={"limits": {"gpu": True}})


def test_pvc_to_create_needs_storage_class_size_and_access_mode() -> None:
    with pytest.raises(ValidationError) as caught:
        PVC.model_validate({"name": "models", "create": True, "size": "100Gi"})

    assert [e["loc"] for e in caught.value.errors()] == [()]
    assert caught.value.errors()[0]["msg"].endswith(
        "storageClass, volumeAccessMode required when create is true"
    )


def test_pvc_to_create_with_all_fields_is_accepted() -> None:
    pvc = PVC.model_validate(
        {
            "name": "models",
            "create": True,
            "size": "100Gi",
            "storageClass": "fast",
            "volumeAccessMode": "ReadWriteMany",
        }
    )

    assert pvc.storage_class == "fast"


def test_existing_pvc_needs_only_a_name() -> None:
    assert PVC.model_validate({"name": "models"}).create is None

    with pytest.raises(ValidationError):
        PVC.model_validate({"create": False})


def test_volume_mount_is_not_a_compilation_cache_by_default() -> None:
    mount = VolumeMount.model_validate({"name": "models", "mountPoint": "/models"})

    assert mount.use_as_compilation_cache is False


def test_extra_pod_spec_exposes_pod_fields_apart_from_main_container() -> None:
    parsed = service(
        extraPodSpec={
            "nodeSelector": {"pool": "gpu"},
            "mainContainer": {"image": "x", "command": ["run"]},
        }
    )

    assert parsed.extra_pod_spec is not None
    assert parsed.extra_pod_spec.pod_spec_overrides() == {"nodeSelector": {"pool": "gpu"}}
    assert parsed.extra_pod_spec.main_container == {"image": "x", "command": ["run"]}


def test_env_requires_a_name() -> None:
    with pytest.raises(ValidationError) as caught:
        service(envs=[{"value": "x"}])

    assert [e["loc"] for e in caught.value.errors()] == [("envs", 0, "name")]
