from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.builders.container import build_main_container
from dynamo_operator.builders.multinode import Role
from dynamo_operator.builders.volumes import PersistentVolumeMounts

from .factories import component, context, multinode_worker

PROBES = {"livenessProbe", "readinessProbe", "startupProbe"}


def container_for(backend: str, role: Role, **kwargs: Any) -> dict[str, Any]:
    worker = multinode_worker(backend, **kwargs)
    return build_main_container(
        worker, context(), PersistentVolumeMounts(), shared_memory=True, role=role
    )


@pytest.mark.parametrize("backend", ["vllm", "sglang"])
def test_vllm_and_sglang_workers_lose_every_probe_and_leaders_keep_them(backend: str) -> None:
    assert PROBES.isdisjoint(container_for(backend, "worker"))
    assert set(container_for(backend, "leader")) >= PROBES


def test_trtllm_worker_keeps_only_a_tcp_readiness_probe_on_the_ssh_port() -> None:
    worker = container_for("trtllm", "worker")
    assert "livenessProbe" not in worker
    assert "startupProbe" not in worker
    assert worker["readinessProbe"] == {
        "tcpSocket": {"port": 2222},
        "initialDelaySeconds": 20,
        "periodSeconds": 20,
        "timeoutSeconds": 5,
        "failureThreshold": 10,
    }
    assert set(container_for("trtllm", "leader")) >= PROBES


@pytest.mark.parametrize("role", ["leader", "worker"])
def test_trtllm_pods_keep_fqdn_hostnames_and_mount_the_ssh_key(role: Role) -> None:
    container = container_for("trtllm", role)
    env = {entry["name"]: entry.get("value") for entry in container["env"]}
    assert env["OMPI_MCA_orte_keep_fqdn_hostnames"] == "1"
    mounts = {mount["mountPath"] for mount in container["volumeMounts"]}
    assert "/ssh-pk" in mounts


def test_trtllm_leader_launches_mpirun_across_every_gpu_of_the_group() -> None:
    leader = container_for("trtllm", "leader", gpus=4, node_count=3)
    (script,) = leader["args"]
    assert "mpirun" in script
    assert "-n 12" in script
    assert "trtllm-llmapi-launch python3 -m dynamo.trtllm" in script


def test_user_probes_do_not_survive_the_multinode_worker_rule() -> None:
    worker = component(
        componentType="worker",
        backendFramework="vllm",
        multinode={"nodeCount": 2},
        livenessProbe={"exec": {"command": ["true"]}},
    )
    container = build_main_container(
        worker, context(), PersistentVolumeMounts(), shared_memory=True, role="worker"
    )
    assert PROBES.isdisjoint(container)


def test_vllm_uses_ray_when_model_parallelism_exceeds_one_pod() -> None:
    args = ["--tensor-parallel-size", "8", "--pipeline-parallel-size", "2"]
    leader = container_for("vllm", "leader", gpus=8, args=args)
    worker = container_for("vllm", "worker", gpus=8, args=args)
    assert leader["command"] == ["/bin/sh", "-c"]
    assert leader["args"][0].startswith("ray start --head --port=6379 && python3")
    assert leader["args"][0].endswith("--distributed-executor-backend ray")
    # The worker waits for the head before joining it.
    assert worker["args"][0].startswith("until ray health-check")
    assert "ray start --address=${LWS_LEADER_ADDRESS}:6379 --block" in worker["args"][0]


def test_vllm_uses_data_parallel_ranks_when_the_model_fits_one_pod() -> None:
    args = ["--tensor-parallel-size", "2"]
    leader = container_for("vllm", "leader", gpus=8, node_count=2, args=args)
    worker = container_for("vllm", "worker", gpus=8, node_count=2, args=args)
    assert "--data-parallel-size 8 --data-parallel-size-local 4" in leader["args"][0]
    assert "--data-parallel-start-rank 0 " in leader["args"][0]
    assert "--data-parallel-start-rank $((4 * ${LWS_WORKER_INDEX}))" in worker["args"][0]


def test_explicit_data_parallel_size_is_not_repeated() -> None:
    args = ["--tensor-parallel-size", "2", "--data-parallel-size", "6"]
    leader = container_for("vllm", "leader", gpus=8, node_count=2, args=args)
    assert leader["args"][0].count("--data-parallel-size ") == 1


@pytest.mark.parametrize("size", ["0", "-2"])
def test_vllm_parallel_sizes_below_one_read_as_one(size: str) -> None:
    """`-tp 0` divided by zero while building the data-parallel script."""
    args = ["-tp", size, "--pipeline-parallel-size", size]
    leader = container_for("vllm", "leader", gpus=8, node_count=2, args=args)
    assert "--data-parallel-size 16 --data-parallel-size-local 8" in leader["args"][0]


def test_sglang_ranks_leader_zero_and_workers_by_lws_index() -> None:
    leader = container_for("sglang", "leader", node_count=3)
    worker = container_for("sglang", "worker", node_count=3)
    assert leader["args"][0].endswith(
        "--dist-init-addr ${LWS_LEADER_ADDRESS}:29500 --nnodes 3 --node-rank 0"
    )
    assert worker["args"][0].endswith("--node-rank ${LWS_WORKER_INDEX}")


def test_non_worker_types_are_identical_in_every_role() -> None:
    frontend = component(
        componentType="frontend", backendFramework="vllm", multinode={"nodeCount": 2}
    )
    built = {
        role: build_main_container(
            frontend, context(), PersistentVolumeMounts(), shared_memory=True, role=role
        )
        for role in ("leader", "worker")
    }
    assert built["leader"] == built["worker"]
