"""Resources: the service's amounts over mainContainer's, GPU under its type, split back."""

from __future__ import annotations

from dynamo_operator.conversion.main_container import build_main, main_hints, split_main
from dynamo_operator.conversion.resources import split_resources


def test_resources_map_gpu_to_its_type_and_keep_main_container_keys_apart() -> None:
    service = {
        "resources": {
            "limits": {"gpu": "2", "gpuType": "amd.com/gpu", "custom": {"rdma/ib": "1"}},
            "requests": {"cpu": "4"},
        },
        "extraPodSpec": {
            "mainContainer": {"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}
        },
    }
    main = build_main(service, [])
    assert main is not None
    assert main["resources"] == {
        "requests": {"cpu": "4", "memory": "1Gi"},
        "limits": {"amd.com/gpu": "2", "rdma/ib": "1"},
    }
    fields, user, _ = split_main(main, main_hints(service, main, []))
    assert fields["resources"] == service["resources"]
    assert user == {"resources": {"requests": {"memory": "1Gi"}}}


def test_what_is_not_a_quantity_stays_in_the_main_container() -> None:
    alpha, own = split_resources({"limits": {"cpu": True, "memory": "1Gi"}, "x": 1}, {})
    assert alpha == {"limits": {"memory": "1Gi"}}
    assert own == {"limits": {"cpu": True}, "x": 1}
