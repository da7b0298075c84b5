"""Multinode rules per backend and pod role.

A multinode replica is one leader pod and ``nodeCount - 1`` worker pods. The rules run after the
user's overrides, so they beat user-set probes:
- vLLM: workers lose every probe. When tensor x pipeline parallelism needs more GPUs than one pod
  has, the pods form a Ray cluster (leader is the head, port 6379); otherwise they run vLLM's
  hybrid data-parallel mode (RPC port 13445) with each node's start rank derived from its index.
- SGLang: workers lose every probe; all pods get ``--dist-init-addr <leader>:29500``, the node
  count and their rank.
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
    int_flag,
    sglang_script,
    trtllm_leader_script,
    trtllm_worker_script,
    user_script,
    vllm_data_parallel_script,
    vllm_ray_leader_script,
    vllm_ray_worker_script,
)
from dynamo_operator.builders.merge import JsonDict, env_var, merge_env, merge_named
from dynamo_operator.builders.ports import container_port
from dynamo_operator.builders.probes import mpi_worker_readiness_probe
from dynamo_operator.builders.resources import gpus_per_node
from dynamo_operator.constants import MPI_SSH_MOUNT_PATH, Env, Ports

Role = Literal["main", "leader", "worker"]
"""Pod role: ``main`` for single-node components, ``leader``/``worker`` inside a multinode group."""

MPI_SSH_VOLUME_NAME = "mpi-ssh-key"
_ALL_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")


def _set_script(container: JsonDict, script: str) -> None:
    container["command"] = ["/bin/sh", "-c"]
    container["args"] = [script]


def _drop_probes(container: JsonDict, *names: str) -> None:
    for name in names:
        container.pop(name, None)


def _add_port(container: JsonDict, name: str, port: int) -> None:
    container["ports"] = merge_named(container.get("ports"), [container_port(name, port)])


def _apply_vllm(container: JsonDict, component: Component, role: Role) -> None:
    is_leader = role == "leader"
    if not is_leader:
        _drop_probes(container, *_ALL_PROBES)
    gpus = gpus_per_node(component.spec.get("resources"))
    if gpus <= 0:
        return
    script = user_script(container)
    # vLLM refuses sizes below 1 at start-up; reading them as 1 keeps the arithmetic defined.
    model_parallel = max(int_flag(script, "--tensor-parallel-size", "-tp"), 1) * max(
        int_flag(script, "--pipeline-parallel-size", "-pp"), 1
    )
    if model_parallel > gpus:
        if is_leader:
            _set_script(container, vllm_ray_leader_script(script))
            _add_port(container, "ray-head", Ports.RAY_HEAD)
        else:
            _set_script(container, vllm_ray_worker_script())
        return
    explicit_total = int_flag(script, "--data-parallel-size", "-dp", default=0)
    local_size = gpus // model_parallel
    total = explicit_total or local_size * component.node_count
    if model_parallel * total > gpus:
        _set_script(
            container,
            vllm_data_parallel_script(
                script,
                local_size=local_size,
                total_size=None if explicit_total else total,
                is_leader=is_leader,
            ),
        )


def _apply_sglang(container: JsonDict, component: Component, role: Role) -> None:
    is_leader = role == "leader"
    if not is_leader:
        _drop_probes(container, *_ALL_PROBES)
    script = sglang_script(
        user_script(container), node_count=component.node_count, is_leader=is_leader
    )
    _set_script(container, script)
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
            user_script(container),
            node_count=component.node_count,
            gpus_per_node=gpus_per_node(component.spec.get("resources")),
            env_names=env_names,
        )
        _set_script(container, script)
        return
    _drop_probes(container, "livenessProbe", "startupProbe")
    container["readinessProbe"] = mpi_worker_readiness_probe()
    _set_script(container, trtllm_worker_script())


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
