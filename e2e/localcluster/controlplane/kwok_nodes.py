"""Fake nodes: kwok's Stage configuration and the Node objects it manages.

kwok plays the kubelet: it marks our Nodes Ready, keeps their Leases fresh, turns bound Pods Running
and Ready, and finishes the deletion of Pods (without it, deleted Pods would stay Terminating
forever, waiting for a kubelet). The Stages are kwok's own "fast" set, shipped in its module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e.localcluster.conditions import is_condition_true

# The same five Stages kwokctl configures by default.
_STAGE_FILES = (
    "node/fast/node-initialize.yaml",
    "node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
    "pod/fast/pod-ready.yaml",
    "pod/fast/pod-complete.yaml",
    "pod/fast/pod-delete.yaml",
)

MANAGED_ANNOTATION = "kwok.x-k8s.io/node"
NODE_COUNT = 2
# Enough room for several multi-GPU graphs per test run; nothing is really consumed.
NODE_CAPACITY = {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": "8"}


def write_stage_config(kwok_source: Path, path: Path) -> Path:
    stage_dir = kwok_source / "kustomize" / "stage"
    documents = [(stage_dir / name).read_text() for name in _STAGE_FILES]
    path.write_text("".join(f"---\n{doc.strip()}\n" for doc in documents))
    return path


def kwok_argv(kwok: Path, *, kubeconfig: Path, stage_config: Path) -> list[str | Path]:
    return [
        kwok,
        f"--kubeconfig={kubeconfig}",
        f"--config={stage_config}",
        "--manage-all-nodes=false",
        f"--manage-nodes-with-annotation-selector={MANAGED_ANNOTATION}=fake",
        "--node-lease-duration-seconds=40",
        # Pod IPs come from here; keep it apart from the apiserver's service range.
        "--cidr=10.244.0.0/16",
        "--node-ip=10.250.0.1",
    ]


def node_names() -> list[str]:
    return [f"kwok-node-{index}" for index in range(NODE_COUNT)]


def node_manifest(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": {MANAGED_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "type": "kwok",
                "nvidia.com/gpu.present": "true",
            },
        },
        # Nodes accept status on create; kwok keeps capacity it finds instead of its defaults.
        "status": {"capacity": dict(NODE_CAPACITY), "allocatable": dict(NODE_CAPACITY)},
    }


def node_is_ready(node: dict[str, Any]) -> bool:
    return is_condition_true(node, "Ready")
