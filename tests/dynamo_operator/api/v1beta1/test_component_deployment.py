from dynamo_operator.api import v1beta1


def test_the_component_is_inline_in_the_spec_beside_the_backend() -> None:
    wire = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "agg-worker"},
        "spec": {
            "backendFramework": "sglang",
            "name": "worker",
            "type": "decode",
            "multinode": {"nodeCount": 4},
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": "sglang:1"}]}},
        },
        "status": {"component": {"replicas": 1}, "podSelector": {"app": "worker"}},
    }

    dcd = v1beta1.DynamoComponentDeployment.model_validate(wire)

    assert dcd.spec.name == "worker"
    assert dcd.spec.multinode is not None
    assert dcd.spec.multinode.node_count == 4
    assert dcd.to_wire() == wire
