from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dynamo_operator.builders import InvalidComponentError
from dynamo_operator.builders.container import build_main_container, default_launch, merge_probe
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


FRONTEND_MODULE = ["-m", "dynamo.frontend"]


@pytest.mark.parametrize(
    ("command", "args", "launch"),
    [
        # upstream component_frontend_test.go TestFrontendDefaults_GetBaseContainer: neither given
        ([], [], (["python3"], FRONTEND_MODULE)),
        # command only: a bare interpreter keeps the default args (mergo keeps unset fields)
        (["python3"], [], (["python3"], FRONTEND_MODULE)),
        (["/usr/bin/python3.11"], [], (["/usr/bin/python3.11"], FRONTEND_MODULE)),
        # ...a full command is not given the module a second time (upstream would)
        (["python3", "-m", "dynamo.frontend"], [], (["python3", "-m", "dynamo.frontend"], [])),
        # args only: they replace upstream's default args under python3 when they name the
        # program; flags alone are the frontend's (upstream would hand them to bare python3)
        (
            [],
            ["-m", "dynamo.frontend", "--http-port", "8080"],
            (["python3"], ["-m", "dynamo.frontend", "--http-port", "8080"]),
        ),
        ([], ["--router-mode", "kv"], (["python3"], [*FRONTEND_MODULE, "--router-mode", "kv"])),
        ([], ["app.py"], (["python3"], ["app.py"])),
        # both given: the user's (upstream graph_test.go, frontend with /bin/sh -c and args)
        (["/bin/sh", "-c", "echo $X"], ["--x", "1"], (["/bin/sh", "-c", "echo $X"], ["--x", "1"])),
        # a script as args runs under the shell, for a frontend too
        (
            [],
            ["python3 -m dynamo.frontend | tee /tmp/log"],
            (["/bin/sh", "-c"], ["python3 -m dynamo.frontend | tee /tmp/log"]),
        ),
    ],
)
def test_frontend_launch_for_each_combination(
    command: list[str], args: list[str], launch: tuple[list[str], list[str]]
) -> None:
    assert default_launch("frontend", command, args) == launch


@pytest.mark.parametrize("component_type", ["planner", "worker", "prefill", "main", ""])
@pytest.mark.parametrize(
    ("command", "args", "launch"),
    [
        # upstream component_common.go: every component's base command is /bin/sh -c, so a script
        # given as args runs (graph_test.go: Command [/bin/sh, -c], Args [<script>])
        ([], ["python3 -m dynamo.planner --environment kubernetes"], ["/bin/sh", "-c"]),
        ([], ["exec ./run.sh && echo done"], ["/bin/sh", "-c"]),
        ([], ["$HOME/run.sh"], ["/bin/sh", "-c"]),
        # args that are words go to the image's entrypoint (upstream's /bin/sh -c would run the
        # first word alone); nothing given runs the image as it is (upstream: a bare /bin/sh -c)
        ([], ["serve", "8080"], []),
        ([], ["python3", "-m", "dynamo.vllm"], []),
        ([], [], []),
        (["python3", "-m", "dynamo.vllm"], ["--model", "m"], ["python3", "-m", "dynamo.vllm"]),
    ],
)
def test_other_components_get_the_shell_for_a_script_given_as_args(
    component_type: str, command: list[str], args: list[str], launch: list[str]
) -> None:
    assert default_launch(component_type, command, args) == (launch, args)


def test_an_empty_command_or_args_is_left_out_of_the_container() -> None:
    container = main_container(
        componentType="worker", extraPodSpec={"mainContainer": {"command": [], "args": []}}
    )

    assert "command" not in container
    assert "args" not in container


@pytest.fixture
def stub_python(tmp_path: Path) -> dict[str, str]:
    """A ``python3`` on PATH that prints the arguments it got, one a line."""
    stub = tmp_path / "python3"
    stub.write_text('#!/bin/sh\nfor word in "$@"; do echo "$word"; done\n')
    stub.chmod(0o755)
    return {**os.environ, "PATH": f"{tmp_path}:{os.environ.get('PATH', '')}"}


@pytest.mark.parametrize(
    ("spec", "argv"),
    [
        (
            {"componentType": "planner", "args": ["python3 -m dynamo.planner --backend vllm"]},
            ["-m", "dynamo.planner", "--backend", "vllm"],
        ),
        ({"componentType": "frontend", "command": ["python3"]}, FRONTEND_MODULE),
        (
            {"componentType": "frontend", "args": ["--router-mode", "kv"]},
            [*FRONTEND_MODULE, "--router-mode", "kv"],
        ),
        (
            {"componentType": "frontend", "args": ["-m", "dynamo.frontend", "--router-mode", "kv"]},
            [*FRONTEND_MODULE, "--router-mode", "kv"],
        ),
    ],
)
def test_the_rendered_launch_starts_the_program_with_its_arguments(
    stub_python: dict[str, str], spec: dict[str, Any], argv: list[str]
) -> None:
    main = {key: spec.pop(key) for key in ("command", "args") if key in spec}
    container = main_container(**spec, extraPodSpec={"mainContainer": main})

    ran = subprocess.run(
        [*container["command"], *container.get("args", ())],
        env=stub_python,
        capture_output=True,
        text=True,
        check=True,
        timeout=10,
    )

    assert ran.stdout.splitlines() == argv
