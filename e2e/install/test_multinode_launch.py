"""Multinode launch scripts run for real: which process gets which flags, read from the pods.

The operator (installed by Helm on the real node) renders the leader and worker pods of a vLLM
graph that spans two pods with Ray and of an SGLang graph of two nodes, both written as a shell
script with a second program after the engine's launch. The pods run on the real node
(LeaderWorkerSet's controller creates them, containerd runs them) with stub ``python3`` and
``ray`` programs first on ``PATH``: each stub prints the argv it got and the test reads the pods'
logs. The rendered text being right is not enough: this is what the shell actually runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from e2e.localcluster import wait_for
from e2e.support.helm_install import CONVERGE, Installed, install
from e2e.support.kinds import GRAPH
from e2e.support.real_node import RealNodeCluster

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

IMAGE = "localhost/dynamo-operator:dev"  # any image with /bin/sh and sleep
STUBS = "launch-stubs"
# Each stub prints one line: its name, then every argument in brackets (spaces stay visible).
_PRINT_ARGV = (
    'printf "ARGV %s" "$(basename "$0")"; for a in "$@"; do printf " [%s]" "$a"; done; echo'
)
STUB_PROGRAMS = {
    # The engine: report and exit, so that what the script runs next shows too.
    "python3": f"#!/bin/sh\n{_PRINT_ARGV}\n",
    # Ray: the head and the health check succeed at once; a joining worker blocks.
    "ray": f'#!/bin/sh\n{_PRINT_ARGV}\ncase "$*" in *--block*) exec sleep 3600;; esac\n',
    # What the user's script runs after the engine: it must get no flag of ours.
    "after-engine": f"#!/bin/sh\n{_PRINT_ARGV}\n",
}
GPU = "nvidia.com/gpu"


@pytest.fixture(scope="module")
def installed(real_node: RealNodeCluster, operator_image_tar: Path) -> Installed:
    installed = install(real_node, operator_image_tar)
    # Advertise GPUs on the real node (an extended resource, as the Kubernetes docs do it) so
    # that the workers' GPU requests schedule; nothing here uses one.
    installed.admin.patch(
        f"/api/v1/nodes/{real_node.node_name}/status", {"status": {"capacity": {GPU: "4"}}}
    )
    return installed


def test_a_vllm_graph_spanning_two_pods_starts_ray_and_gives_only_the_engine_its_flags(
    installed: Installed,
) -> None:
    script = (
        "python3 -m dynamo.vllm --model m --tensor-parallel-size 2 && after-engine ; sleep 3600"
    )
    # The leader prints three lines (Ray's head, the engine, what follows), the worker one.
    lines = _launch(installed, "vllm-ray", "vllm", script, {"leader": 3, "worker": 1})

    leader, worker = lines["leader"], lines["worker"]
    assert leader[0] == "ARGV ray [start] [--head] [--port=6379]", leader
    assert leader[1].startswith("ARGV python3 [-m] [dynamo.vllm] [--model] [m]"), leader
    assert "[--distributed-executor-backend] [ray]" in leader[1], leader
    assert leader[2] == "ARGV after-engine", leader
    # The worker's health checks are silenced (>/dev/null); once the head answers it joins it.
    [join] = worker
    assert join.startswith("ARGV ray [start] [--address=vllm-ray-"), worker
    assert join.endswith(":6379] [--block]"), worker


def test_an_sglang_graph_of_two_nodes_gives_each_engine_its_rank_and_nothing_to_the_rest(
    installed: Installed,
) -> None:
    script = "python3 -m dynamo.sglang --model-path m --tp 2 && after-engine ; sleep 3600"
    lines = _launch(installed, "sglang-two", "sglang", script, {"leader": 2, "worker": 2})

    for role, rank in (("leader", "0"), ("worker", "1")):
        engine, after = lines[role]
        assert engine.startswith("ARGV python3 [-m] [dynamo.sglang] [--model-path] [m] [--tp] [2]")
        assert engine.endswith(f"[--nnodes] [2] [--node-rank] [{rank}]"), engine
        assert "[--dist-init-addr] [sglang-two-" in engine, engine
        assert after == "ARGV after-engine", lines[role]


def _launch(
    installed: Installed, name: str, backend: str, script: str, expected: dict[str, int]
) -> dict[str, list[str]]:
    """Apply a two-node graph of one worker running `script`; the ARGV lines of each pod role,
    once each role has printed as many as `expected` (a pod's programs print one after another,
    so reading its log at the first line would race the rest)."""
    namespace = installed.node.create_namespace(name)
    installed.admin.create(
        f"/api/v1/namespaces/{namespace}/configmaps",
        {"metadata": {"name": STUBS}, "data": STUB_PROGRAMS},
    )
    installed.admin.create(GRAPH.collection_path(namespace), _graph(name, backend, script))
    pods: dict[str, list[str]] = {}

    def both_reported() -> dict[str, list[str]] | None:
        items = installed.admin.get(f"/api/v1/namespaces/{namespace}/pods")["items"]
        for pod in items:
            if pod.get("status", {}).get("phase") != "Running":
                continue
            index = pod["metadata"]["labels"].get("leaderworkerset.sigs.k8s.io/worker-index")
            role = "leader" if index == "0" else "worker"
            log = installed.node.pod_logs(namespace, pod["metadata"]["name"], "main")
            pods[role] = [line for line in log.splitlines() if line.startswith("ARGV")]
        done = all(len(pods.get(role, [])) >= count for role, count in expected.items())
        return pods if done else None

    try:
        return wait_for(f"both pods of {name} reporting", both_reported, timeout=CONVERGE)
    except TimeoutError as error:
        raise AssertionError(f"pods of {name}: {pods}") from error


def _graph(name: str, backend: str, script: str) -> dict[str, Any]:
    placement = RealNodeCluster.pod_placement()
    stub_probe = {"exec": {"command": ["true"]}, "periodSeconds": 5}
    worker = {
        "componentType": "worker",
        "replicas": 1,
        "multinode": {"nodeCount": 2},
        "resources": {"limits": {"gpu": "1"}},
        "envs": [{"name": "PATH", "value": "/stubs:/usr/local/bin:/usr/bin:/bin"}],
        # The engine is a stub that answers no health check; the test reads logs, not readiness.
        "livenessProbe": stub_probe,
        "readinessProbe": stub_probe,
        "extraPodSpec": {
            **placement,
            "terminationGracePeriodSeconds": 1,
            "volumes": [{"name": "stubs", "configMap": {"name": STUBS, "defaultMode": 0o755}}],
            "mainContainer": {
                "image": IMAGE,
                "imagePullPolicy": "Never",
                "command": ["/bin/sh", "-c"],
                "args": [script],
                "volumeMounts": [{"name": "stubs", "mountPath": "/stubs", "readOnly": True}],
            },
        },
    }
    return {
        "apiVersion": GRAPH.api_version,
        "kind": GRAPH.kind,
        "metadata": {"name": name},
        "spec": {"backendFramework": backend, "services": {"Worker": worker}},
    }
