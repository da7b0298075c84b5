from typing import Any

import pytest

from dynamo_operator.render import render_objects
from dynamo_operator.settings import OperatorSettings
from dynamo_operator.validation import IssueReason, validate_create, validate_update


def graph(services: dict[str, Any], name: str = "g", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {"services": services, **spec},
    }


def error_paths(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    result = validate_create(obj) if old is None else validate_update(obj, old)
    return [issue.path for issue in result.errors]


def test_changing_the_backend_framework_is_rejected_as_immutable() -> None:
    old = graph({"W": {}}, backendFramework="vllm")
    new = graph({"W": {}}, backendFramework="sglang")

    result = validate_update(new, old)

    assert [(e.path, e.reason) for e in result.errors] == [
        ("spec.backendFramework", IssueReason.IMMUTABLE_FIELD_CHANGED)
    ]
    assert "'vllm'" in result.errors[0].message


def test_setting_a_backend_that_was_unset_is_also_a_change() -> None:
    assert error_paths(graph({"W": {}}, backendFramework="vllm"), graph({"W": {}})) == [
        "spec.backendFramework"
    ]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({}, {"multinode": {"nodeCount": 2}}),
        ({"multinode": {}}, {}),
        ({"multinode": {}}, {"replicas": 3}),
    ],
)
def test_switching_a_service_between_single_node_and_multinode_is_rejected(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    assert error_paths(graph({"W": after}), graph({"W": before})) == ["spec.services.W.multinode"]


def test_changing_the_node_count_of_a_multinode_service_is_allowed() -> None:
    old = graph({"W": {"multinode": {"nodeCount": 2}}})
    new = graph({"W": {"multinode": {"nodeCount": 4}, "replicas": 2}})

    assert validate_update(new, old).allowed


def test_adding_and_removing_services_is_allowed() -> None:
    old = graph({"A": {}, "B": {"multinode": {}}})
    new = graph({"A": {}, "C": {"multinode": {}}})

    assert validate_update(new, old).allowed


def test_an_old_object_that_no_longer_parses_does_not_block_an_update() -> None:
    old = graph({"W": {"replicas": "legacy", "multinode": {"nodeCount": "x"}}})

    assert validate_update(graph({"W": {"multinode": {}}}), old).allowed


def test_two_services_that_lowercase_to_the_same_name_collide() -> None:
    assert error_paths(graph({"Frontend": {}, "frontend": {}})) == ["spec.services.frontend"]


def test_multinode_pod_names_must_fit_in_a_dns_label() -> None:
    name = "g" * 50
    fits = graph({"decode": {"multinode": {"nodeCount": 2}}}, name=name)
    too_long = graph({"decode": {"multinode": {"nodeCount": 16}, "replicas": 100}}, name=name)

    assert validate_create(fits).allowed
    [error] = validate_create(too_long).errors
    assert error.path == "spec.services.decode"
    assert error.reason is IssueReason.INVALID_NAME
    assert f"{name}-decode-99-0-15" in error.message


def test_the_derived_dynamo_namespace_must_be_a_valid_label_value() -> None:
    obj = graph({"A": {}}, name="g" * 50)
    obj["metadata"]["namespace"] = "n" * 20

    [error] = validate_create(obj).errors
    assert error.path == "metadata.name"
    assert "dynamoNamespace" in error.message


def test_a_declared_dynamo_namespace_avoids_the_derived_one() -> None:
    obj = graph({"A": {"dynamoNamespace": "short"}}, name="g" * 50)
    obj["metadata"]["namespace"] = "n" * 20

    assert validate_create(obj).allowed


def test_services_agreeing_on_one_dynamo_namespace_are_valid() -> None:
    obj = graph({"A": {"dynamoNamespace": "team"}, "B": {"dynamoNamespace": "team"}, "C": {}})

    assert validate_create(obj).allowed


def test_duplicate_pvc_names_and_double_mounts_are_rejected() -> None:
    obj = graph(
        {
            "W": {
                "volumeMounts": [
                    {"name": "m", "mountPoint": "/a"},
                    {"name": "m", "mountPoint": "/b"},
                ]
            }
        },
        pvcs=[{"name": "m"}, {"name": "m"}],
    )

    assert error_paths(obj) == ["spec.pvcs[1].name", "spec.services.W.volumeMounts[1].name"]


def test_vllm_compilation_cache_may_omit_its_mount_point() -> None:
    obj = graph(
        {"W": {"volumeMounts": [{"name": "cache", "useAsCompilationCache": True}]}},
        pvcs=[{"name": "cache"}],
        backendFramework="vllm",
    )

    result = validate_create(obj)
    assert result.allowed
    assert result.warnings == ()


@pytest.mark.parametrize(
    ("launch", "errors"),
    [
        (None, ["spec.services.W.volumeMounts[0].mountPoint"]),
        (["python3", "-m", "dynamo.trtllm"], ["spec.services.W.volumeMounts[0].mountPoint"]),
        (["python3", "-m", "dynamo.vllm"], []),
    ],
    ids=["no backend", "trtllm launched", "vllm launched but not declared"],
)
def test_a_compilation_cache_needs_a_mount_point_unless_the_backend_is_vllm(
    launch: list[str] | None, errors: list[str]
) -> None:
    """Only vLLM has a default path. Validation sees the backend the builders see: declared,
    else inferred from the launch command (both from backend_inference), so what validation
    lets through ``render`` builds (a mismatch bench/fuzz.py once found)."""
    worker: dict[str, Any] = {"volumeMounts": [{"name": "cache", "useAsCompilationCache": True}]}
    if launch:
        worker["extraPodSpec"] = {"mainContainer": {"command": launch}}
    obj = graph({"W": worker}, pvcs=[{"name": "cache"}])

    assert error_paths(obj) == errors
    if not errors:
        objects = render_objects([obj], OperatorSettings()).objects
        [deployment] = [o for o in objects if o["kind"] == "Deployment"]
        env = deployment["spec"]["template"]["spec"]["containers"][-1]["env"]
        assert {"name": "VLLM_CACHE_ROOT", "value": "/root/.cache/vllm"} in env


def test_duplicate_env_names_are_rejected() -> None:
    obj = graph({"W": {"envs": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]}})

    assert error_paths(obj) == ["spec.services.W.envs[1].name"]


def test_enabled_autoscaling_needs_a_consistent_replica_range() -> None:
    inverted = graph({"W": {"autoscaling": {"enabled": True, "minReplicas": 5, "maxReplicas": 2}}})
    no_max = graph({"W": {"autoscaling": {"enabled": True}}})
    disabled = graph({"W": {"autoscaling": {"enabled": False}}})

    assert error_paths(inverted) == ["spec.services.W.autoscaling.minReplicas"]
    assert error_paths(no_max) == ["spec.services.W.autoscaling.maxReplicas"]
    assert error_paths(disabled) == []


def test_a_name_is_required_unless_generated() -> None:
    unnamed = graph({"A": {}})
    del unnamed["metadata"]["name"]
    generated = graph({"A": {}})
    generated["metadata"] = {"generateName": "g-"}

    assert error_paths(unnamed) == ["metadata.name"]
    assert error_paths(generated) == []


def test_a_backend_set_on_a_service_is_refused() -> None:
    """It would flow into the service's DCD unvalidated: render failed on `backendFramework:
    "False"` in a service that validation had let through (found by bench/fuzz.py)."""
    for value in ("False", "vllm"):
        obj = graph({"W": {"backendFramework": value}})

        assert error_paths(obj) == ["spec.services.W.backendFramework"]
