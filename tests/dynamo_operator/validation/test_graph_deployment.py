from typing import Any

import pytest

from dynamo_operator.render import render_objects
from dynamo_operator.settings import OperatorSettings
from dynamo_operator.validation import IssueReason, validate_create, validate_update

IMAGE: dict[str, Any] = {"extraPodSpec": {"mainContainer": {"image": "vllm"}}}
"""What a multinode service needs at least: the image its leader and worker pods run."""


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
        ({}, {"multinode": {"nodeCount": 2}, **IMAGE}),
        ({"multinode": {}, **IMAGE}, {}),
        ({"multinode": {}, **IMAGE}, {"replicas": 3}),
    ],
)
def test_switching_a_service_between_single_node_and_multinode_is_rejected(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    assert error_paths(graph({"W": after}), graph({"W": before})) == ["spec.services.W.multinode"]


def test_changing_the_node_count_of_a_multinode_service_is_allowed() -> None:
    old = graph({"W": {"multinode": {"nodeCount": 2}, **IMAGE}})
    new = graph({"W": {"multinode": {"nodeCount": 4}, "replicas": 2, **IMAGE}})

    assert validate_update(new, old).allowed


def test_adding_and_removing_services_is_allowed() -> None:
    old = graph({"A": {}, "B": {"multinode": {}, **IMAGE}})
    new = graph({"A": {}, "C": {"multinode": {}, **IMAGE}})

    assert validate_update(new, old).allowed


def test_an_old_object_that_no_longer_parses_does_not_block_an_update() -> None:
    old = graph({"W": {"replicas": "legacy", "multinode": {"nodeCount": "x"}}})

    assert validate_update(graph({"W": {"multinode": {}, **IMAGE}}), old).allowed


def test_two_services_that_lowercase_to_the_same_name_collide() -> None:
    assert error_paths(graph({"Frontend": {}, "frontend": {}})) == ["spec.services.frontend"]


def test_multinode_pod_names_must_fit_in_a_dns_label() -> None:
    name = "g" * 50
    fits = graph({"decode": {"multinode": {"nodeCount": 2}, **IMAGE}}, name=name)
    too_long = graph(
        {"decode": {"multinode": {"nodeCount": 16}, "replicas": 100, **IMAGE}}, name=name
    )

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


def launching(module: str, component_type: str = "worker") -> dict[str, Any]:
    main = {"image": "x", "command": ["python3", "-m", module]}
    return {"componentType": component_type, "extraPodSpec": {"mainContainer": main}}


def test_a_script_launching_two_backends_is_refused() -> None:
    # Upstream's TestDetectBackendFrameworkFromArgs "multiple backends detected": the two
    # launches are joined by && (one pattern per backend, none crossing |, & or ;).
    script = "python -m dynamo.vllm.worker && python -m dynamo.sglang"
    worker = {"componentType": "worker", "extraPodSpec": {"mainContainer": {"args": [script]}}}

    [error] = validate_create(graph({"W": worker})).errors
    assert str(error) == (
        "spec.services.W.extraPodSpec.mainContainer: launches several backends: sglang, vllm"
    )


def test_workers_launching_different_backends_need_one_backend() -> None:
    obj = graph({"A": launching("dynamo.vllm"), "B": launching("dynamo.sglang", "decode")})

    [error] = validate_create(obj).errors
    assert error.path == "spec.backendFramework"
    assert "workers launch different backends (A vllm, B sglang)" in error.message


def test_any_component_must_agree_with_the_backend_the_workers_launch() -> None:
    """Every generated component declares the workers' backend: one launching another would be
    refused as a component; the graph is, naming it."""
    obj = graph({"W": launching("dynamo.vllm"), "Odd": launching("dynamo.sglang", "main")})

    [error] = validate_create(obj).errors
    assert str(error) == (
        "spec.services.Odd.extraPodSpec.mainContainer: launches dynamo.sglang but the graph's "
        "workers launch vllm, the backend all its components declare"
    )


def test_a_frontend_compilation_cache_takes_vllm_default_when_the_workers_run_vllm() -> None:
    frontend = {
        "componentType": "frontend",
        "volumeMounts": [{"name": "cache", "useAsCompilationCache": True}],
    }
    obj = graph({"F": frontend, "W": launching("dynamo.vllm")}, pvcs=[{"name": "cache"}])

    assert validate_create(obj).allowed


def test_a_multinode_service_needs_an_image_unless_an_artifact_builds_it() -> None:
    # Upstream refuses to render the LeaderWorkerSet ("image is not set for component").
    worker = {"componentType": "worker", "multinode": {"nodeCount": 2}}

    [error] = validate_create(graph({"W": worker})).errors
    assert (error.path, error.reason) == (
        "spec.services.W.extraPodSpec.mainContainer.image",
        IssueReason.MISSING_REQUIRED_FIELD,
    )
    assert validate_create(graph({"W": worker}, dynamoComponent="llm:v1")).allowed
    assert validate_create(graph({"W": {**worker, "multinode": None}})).allowed


def test_a_declared_dynamo_namespace_is_honoured_with_a_deprecation_warning() -> None:
    result = validate_create(graph({"A": {"dynamoNamespace": "shared"}, "B": {}}))

    assert result.allowed
    [warning] = result.warnings
    assert warning.path == "spec.services.A.dynamoNamespace"
    assert warning.message.startswith(
        "deprecated: the components run in Dynamo namespace 'shared' as written, but upstream's "
        "operator ignores this field and uses <namespace>-<graph> ('llm-g'); graphs of one "
        "namespace that share a Dynamo namespace share discovery"
    )


@pytest.mark.parametrize(
    ("value", "paths"),
    [
        ("etcd", []),
        ("kubernetes", []),
        ("", []),
        ("consul", ["metadata.annotations.nvidia.com/dynamo-discovery-backend"]),
    ],
)
def test_the_graph_discovery_backend_is_kubernetes_or_etcd(value: str, paths: list[str]) -> None:
    obj = graph({"W": {}})
    obj["metadata"]["annotations"] = {"nvidia.com/dynamo-discovery-backend": value}

    assert error_paths(obj) == paths


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{not json", "DYN_DEPLOYMENT_CONFIG is not JSON"),
        ('["F"]', "DYN_DEPLOYMENT_CONFIG must be a JSON object keyed by service name"),
        (
            '{"F": {"ServiceArgs": {"Workers": "2"}}}',
            "DYN_DEPLOYMENT_CONFIG F.ServiceArgs.Workers must be a whole number >= 0",
        ),
        (
            '{"F": {"ServiceArgs": {"Resources": {"GPU": "two"}}}}',
            "DYN_DEPLOYMENT_CONFIG F.ServiceArgs.Resources.GPU: 'two' is not a quantity",
        ),
    ],
)
def test_a_deployment_config_the_operator_cannot_read_is_refused(value: str, message: str) -> None:
    envs = [{"name": "OTHER", "value": "1"}, {"name": "DYN_DEPLOYMENT_CONFIG", "value": value}]

    for obj, path in (
        (graph({"F": {}}, envs=envs), "spec.envs[1].value"),
        (graph({"F": {"envs": envs}}), "spec.services.F.envs[1].value"),
    ):
        [error] = validate_create(obj).errors
        assert error.path == path
        assert error.message.startswith(message)


def test_a_deployment_config_from_elsewhere_is_not_read() -> None:
    source = {"configMapKeyRef": {"name": "config", "key": "dyn"}}
    envs = [{"name": "DYN_DEPLOYMENT_CONFIG", "valueFrom": source}]

    assert validate_create(graph({"F": {}}, envs=envs)).allowed
