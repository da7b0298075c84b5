"""Multinode rules per backend and pod role.

A multinode replica is one leader pod and ``nodeCount - 1`` worker pods. The rules run after the
user's overrides, so they beat user-set probes. Flags go on the engine's launch command inside the
user's script (``launch_commands.find_launch``), never on another program; a script without one
keeps its flags-free form (validation warns: ``validation/launch_command.py``).
- vLLM: workers lose every probe. As upstream's ``backend_vllm.go``: when tensor x pipeline
  parallelism needs more GPUs than one pod has, the pods form a Ray cluster (leader is the head,
  port 6379, and its launch gets ``--distributed-executor-backend ray``; workers wait for the head,
  then join it); when the user's ``--data-parallel-size`` times that does, they run vLLM's hybrid
  data-parallel mode (RPC port 13445) with each pod's start rank derived from its index;
  otherwise no flags (each pod runs an engine of its own).
- SGLang: workers lose every probe; every launch gets ``--dist-init-addr <leader>:29500``, the
  node count and the pod's rank.
- TensorRT-LLM: the leader keeps its probes and runs ``mpirun`` over SSH (port 2222) across the
  group; workers run sshd, lose liveness and startup probes and are ready once port 2222 answers.
  Both mount the MPI SSH key Secret and set ``OMPI_MCA_orte_keep_fqdn_hostnames=1``.
Only worker-like components get backend treatment; other types run the same container everywhere.
"""

from __future__ import annotations

from typing import Literal

from dynamo_operator.api.constants import WORKER_LIKE_COMPONENT_TYPES, BackendFramework
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.launch_commands import (
    DEFAULT_SHELL,
    RAY_EXECUTOR_FLAGS,
    find_launch,
    sglang_flags,
    vllm_data_parallel_flags,
    vllm_multinode_mode,
    vllm_ray_leader_script,
    vllm_ray_worker_script,
)
from dynamo_operator.builders.merge import JsonDict, env_var, merge_env, merge_named
from dynamo_operator.builders.ports import container_port
from dynamo_operator.builders.probes import mpi_worker_readiness_probe
from dynamo_operator.builders.resources import gpus_per_node
from dynamo_operator.builders.trtllm_launch import trtllm_leader_script, trtllm_worker_script
from dynamo_operator.constants import MPI_SSH_MOUNT_PATH, Env, Ports

Role = Literal["main", "leader", "worker"]
"""Pod role: ``main`` for single-node components, ``leader``/``worker`` inside a multinode group."""

MPI_SSH_VOLUME_NAME = "mpi-ssh-key"
_ALL_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")


def _set_command(container: JsonDict, command: list[str], args: list[str]) -> None:
    container["command"], container["args"] = command, args


def _drop_probes(container: JsonDict, *names: str) -> None:
    for name in names:
        container.pop(name, None)


def _add_port(container: JsonDict, name: str, port: int) -> None:
    container["ports"] = merge_named(container.get("ports"), [container_port(name, port)])


def _apply_vllm(container: JsonDict, component: Component, role: Role) -> None:
    is_leader = role == "leader"
    if not is_leader:
        _drop_probes(container, *_ALL_PROBES)
    launch = find_launch(container, BackendFramework.VLLM)
    gpus = gpus_per_node(component.spec.get("resources"))
    mode = vllm_multinode_mode(launch.words, gpus)
    if mode == "ray" and is_leader:
        # The head starts even when no launch command is found: the workers wait for it.
        script = launch.with_flags(RAY_EXECUTOR_FLAGS) if launch.commands else launch.script.script
        _set_command(container, *launch.script.fields(vllm_ray_leader_script(script)))
        _add_port(container, "ray-head", Ports.RAY_HEAD)
    elif mode == "ray":
        _set_command(container, list(DEFAULT_SHELL), [vllm_ray_worker_script()])
    elif mode == "data-parallel" and launch.commands:
        flags = vllm_data_parallel_flags(launch.words, gpus, is_leader=is_leader)
        _set_command(container, *launch.script.fields(launch.with_flags(flags)))


def _apply_sglang(container: JsonDict, component: Component, role: Role) -> None:
    is_leader = role == "leader"
    if not is_leader:
        _drop_probes(container, *_ALL_PROBES)
    launch = find_launch(container, BackendFramework.SGLANG)
    if launch.commands:
        flags = sglang_flags(node_count=component.node_count, is_leader=is_leader)
        _set_command(container, *launch.script.fields(launch.with_flags(flags)))
    if is_leader:
        _add_port(container, "dist-init", Ports.SGLANG_DIST_INIT)


def _apply_trtllm(container: JsonDict, component: Component, role: Role) -> None:
    container["env"] = merge_env(container.get("env"), [env_var(Env.OMPI_KEEP_FQDN_HOSTNAMES, "1")])
    container["volumeMounts"] = merge_named(
        container.get("volumeMounts"),
        [{"name": MPI_SSH_VOLUME_NAME, "mountPath": MPI_SSH_MOUNT_PATH, "readOnly": True}],
    )
    _add_port(container, "ssh", Ports.MPI_SSH)
    if role == "leader":
        env_names = [str(entry["name"]) for entry in container["env"]]
        script = trtllm_leader_script(
            find_launch(container, BackendFramework.TRTLLM),
            node_count=component.node_count,
            gpus_per_node=gpus_per_node(component.spec.get("resources")),
            env_names=env_names,
        )
        _set_command(container, list(DEFAULT_SHELL), [script])
        return
    _drop_probes(container, "livenessProbe", "startupProbe")
    container["readinessProbe"] = mpi_worker_readiness_probe()
    _set_command(container, list(DEFAULT_SHELL), [trtllm_worker_script()])


def has_backend_rules(component: Component) -> bool:
    return component.is_multinode and component.component_type in WORKER_LIKE_COMPONENT_TYPES


def apply_multinode_container_rules(
    container: JsonDict, component: Component, context: BuildContext, role: Role
) -> None:
    """Rewrite ``container`` (freshly built by the caller) for its role in a multinode group."""
    if role == "main" or not has_backend_rules(component):
        return
    backend = component.backend
    if backend == BackendFramework.VLLM:
        _apply_vllm(container, component, role)
    elif backend == BackendFramework.SGLANG:
        _apply_sglang(container, component, role)
    elif backend == BackendFramework.TRTLLM:
        _apply_trtllm(container, component, role)


def multinode_pod_volumes(
    component: Component, context: BuildContext, role: Role
) -> list[JsonDict]:
    """Pod volumes the multinode rules need: the MPI SSH key pair for TensorRT-LLM."""
    if role == "main" or not has_backend_rules(component):
        return []
    if component.backend != BackendFramework.TRTLLM:
        return []
    return [
        {
            "name": MPI_SSH_VOLUME_NAME,
            "secret": {"secretName": context.mpi_ssh_secret_name, "defaultMode": 0o644},
        }
    ]
