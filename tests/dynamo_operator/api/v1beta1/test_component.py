from dynamo_operator.api import v1beta1


def test_quantities_and_the_scaling_marker_read_as_users_write_them() -> None:
    component = v1beta1.Component.model_validate(
        {"name": "w", "sharedMemorySize": 0, "scalingAdapter": {}, "replicas": 0}
    )

    assert component.shared_memory_size == "0"  # "0": no /dev/shm volume
    assert component.scaling_adapter == v1beta1.ScalingAdapter()
    assert component.to_wire() == {
        "name": "w",
        "sharedMemorySize": "0",
        "scalingAdapter": {},
        "replicas": 0,
    }
