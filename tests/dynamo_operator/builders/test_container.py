from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.builders import InvalidComponentError
from dynamo_operator.builders.container import build_main_container, merge_probe
from dynamo_operator.builders.volumes import build_persistent_volume_mounts

from .factories import component, context


def main_container(**spec: Any) -> dict[str, Any]:
    built = component(**spec)
    return build_main_container(
        built, context(), build_persistent_volume_mounts(built), shared_memory=True
    )


def env_of(container: dict[str, Any]) -> dict[str, str | None]:
    return {entry["name"]: entry.get("value") for entry in container["env"]}


def test_env_precedence_defaults_then_main_container_then_service_envs() -> None:
    container = main_container(
        componentType="worker",
        envs=[{"name": "DYN_SYSTEM_PORT", "value": "1"}],
        extraPodSpec={
            "mainContainer": {
                "env": [
                    {"name": "DYN_SYSTEM_PORT", "value": "2"},
                    {"name": "DYN_SYSTEM_ENABLED", "value": "false"},
                ]
            }
        },
    )
    env = env_of(container)
    assert env["DYN_SYSTEM_PORT"] == "1"
    assert env["DYN_SYSTEM_ENABLED"] == "false"
    names = [entry["name"] for entry in container["env"]]
    assert names == sorted(names)


def test_operator_flags_become_env_below_user_values() -> None:
    built = component(componentType="frontend", envs=[{"name": "NATS_SERVER", "value": "mine"}])
    container = build_main_container(
        built,
        context(nats_addr="nats://ops", etcd_addr="http://etcd"),
        build_persistent_volume_mounts(built),
        shared_memory=True,
    )
    env = env_of(container)
    assert env["NATS_SERVER"] == "mine"
    assert env["ETCD_ENDPOINTS"] == "http://etcd"


def test_parent_graph_and_dynamo_namespace_env() -> None:
    env = env_of(main_container(componentType="planner"))
    assert env["DYN_NAMESPACE"] == "ns-g"
    assert env["DYN_PARENT_DGD_K8S_NAME"] == "g"
    assert env["DYN_PARENT_DGD_K8S_NAMESPACE"] == "ns"
    assert env["PLANNER_PROMETHEUS_PORT"] == "9085"


@pytest.mark.parametrize(
    ("mount", "backend", "cache_root"),
    [
        ({"name": "c", "useAsCompilationCache": True}, "vllm", "/root/.cache/vllm"),
        ({"name": "c", "mountPoint": "/cache", "useAsCompilationCache": True}, "vllm", "/cache"),
        ({"name": "c", "mountPoint": "/cache", "useAsCompilationCache": True}, "sglang", None),
        ({"name": "c", "mountPoint": "/cache"}, "vllm", None),
    ],
)
def test_vllm_cache_root_is_the_effective_mount_path(
    mount: dict[str, Any], backend: str, cache_root: str | None
) -> None:
    env = env_of(
        main_container(componentType="worker", backendFramework=backend, volumeMounts=[mount])
    )
    assert env.get("VLLM_CACHE_ROOT") == cache_root


@pytest.mark.parametrize("backend", ["sglang", "trtllm"])
def test_compilation_cache_without_mount_point_needs_vllm(backend: str) -> None:
    with pytest.raises(InvalidComponentError, match="mountPoint"):
        main_container(
            backendFramework=backend, volumeMounts=[{"name": "c", "useAsCompilationCache": True}]
        )


def test_gpu_translation_on_requests_and_limits_with_custom_and_gpu_type() -> None:
    container = main_container(
        resources={
            "requests": {"gpu": "2", "cpu": "1"},
            "limits": {"gpu": "2", "gpuType": "gpu.intel.com/xe", "custom": {"rdma/hca": "1"}},
        }
    )
    assert container["resources"] == {
        "requests": {"cpu": "1", "nvidia.com/gpu": "2"},
        "limits": {"gpu.intel.com/xe": "2", "rdma/hca": "1"},
    }


def test_shared_memory_mount_replaces_a_user_dev_shm_mount() -> None:
    container = main_container(
        extraPodSpec={
            "mainContainer": {"volumeMounts": [{"name": "mine", "mountPath": "/dev/shm"}]}
        }
    )
    assert container["volumeMounts"] == [{"name": "shared-memory", "mountPath": "/dev/shm"}]


def test_env_from_secret_is_added_once() -> None:
    container = main_container(
        envFromSecret="hf",
        extraPodSpec={"mainContainer": {"envFrom": [{"secretRef": {"name": "hf"}}]}},
    )
    assert container["envFrom"] == [{"secretRef": {"name": "hf"}}]


def test_top_level_probes_replace_and_main_container_startup_probe_replaces() -> None:
    liveness = {"exec": {"command": ["true"]}}
    startup = {"tcpSocket": {"port": 1}}
    container = main_container(
        componentType="worker",
        livenessProbe=liveness,
        extraPodSpec={"mainContainer": {"startupProbe": startup}},
    )
    assert container["livenessProbe"] == liveness
    assert container["startupProbe"] == startup


def test_merge_probe_handler_replaces_and_timings_tune() -> None:
    default = {"httpGet": {"path": "/live", "port": "system"}, "periodSeconds": 5}
    assert merge_probe(default, {"exec": {"command": ["x"]}}) == {"exec": {"command": ["x"]}}
    assert merge_probe(default, {"periodSeconds": 9}) == {
        "httpGet": {"path": "/live", "port": "system"},
        "periodSeconds": 9,
    }
    assert merge_probe(None, None) is None
