"""The chaos user's manifests and edits, pure: what each graph is made of and what an edit does.

Every graph has four services (frontend, decode, prefill, worker, one replica each, no GPU: kwok
nodes have room for hundreds). Some are special, chosen by index so a run of any size has each
kind: every 10th (from the 4th) has a multinode decode worker (a LeaderWorkerSet of two pods per
replica), every 5th (from the 2nd) a PVC the operator creates, every 4th (from the 3rd) a worker
serving the namespace's base model (`modelRef`, found by the namespace's DynamoModel). The PVC is
not mounted: the local cluster has no provisioner, and the claim only has to survive, not bind.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from e2e.support.chaos.plan import EditKind
from e2e.support.graphs import IMAGE
from e2e.support.kinds import GRAPH, MODEL

SERVICES: Final = {  # name -> (componentType, module)
    "Frontend": ("frontend", "dynamo.frontend"),
    "Decode": ("decode", "dynamo.vllm"),
    "Prefill": ("prefill", "dynamo.vllm"),
    "Worker": ("worker", "dynamo.vllm"),
}
BASE_MODEL: Final = "Qwen/Qwen3-0.6B"
MODEL_NAME: Final = "qwen"
EDIT_ENV: Final = "CHAOS_EDIT"
MAX_REPLICAS: Final = 2
KEPT_SERVICE: Final = "Frontend"
"""Never removed, so every graph keeps at least one service."""


def graph_name(index: int) -> str:
    return f"g-{index:04d}"


def namespace_of(index: int, namespaces: int) -> int:
    """Which namespace (by index) graph `index` lives in: round robin."""
    return index % namespaces


def is_multinode(index: int) -> bool:
    return index % 10 == 3


def has_pvc(index: int) -> bool:
    return index % 5 == 1


def serves_base_model(index: int) -> bool:
    return index % 4 == 2


def pvc_name(index: int) -> str:
    return f"{graph_name(index)}-cache"


def _service(component_type: str, module: str) -> dict[str, Any]:
    return {
        "componentType": component_type,
        "replicas": 1,
        "extraPodSpec": {
            "mainContainer": {"image": IMAGE, "command": ["python3", "-m", module]},
        },
    }


def initial_graph(index: int, namespace: str) -> dict[str, Any]:
    """Graph `index` as the user first creates it."""
    services = {name: _service(*what) for name, what in SERVICES.items()}
    if is_multinode(index):
        services["Decode"]["multinode"] = {"nodeCount": 2}
    if serves_base_model(index):
        services["Worker"]["modelRef"] = {"name": BASE_MODEL}
    spec: dict[str, Any] = {
        "backendFramework": "vllm",
        "envs": [{"name": "HF_HOME", "value": "/models/hf"}],
        "services": services,
    }
    if has_pvc(index):
        spec["pvcs"] = [
            {
                "name": pvc_name(index),
                "create": True,
                "size": "1Gi",
                "storageClass": "standard",
                "volumeAccessMode": "ReadWriteOnce",
            }
        ]
    return {
        "apiVersion": GRAPH.api_version,
        "kind": GRAPH.kind,
        "metadata": {"name": graph_name(index), "namespace": namespace},
        "spec": spec,
    }


def base_model(namespace: str) -> dict[str, Any]:
    """The namespace's DynamoModel: the base model some graphs' workers serve."""
    return {
        "apiVersion": MODEL.api_version,
        "kind": MODEL.kind,
        "metadata": {"name": MODEL_NAME, "namespace": namespace},
        "spec": {"modelName": BASE_MODEL, "baseModelName": BASE_MODEL, "modelType": "base"},
    }


def edited(graph: dict[str, Any], kind: EditKind, value: int) -> tuple[EditKind, dict[str, Any]]:
    """The graph after an edit of `kind` (drawing its choices from `value`), and the kind of edit
    made: removing a service from a graph left with two becomes adding one."""
    result = copy.deepcopy(graph)
    spec = result["spec"]
    services: dict[str, Any] = spec["services"]
    names = sorted(services)
    if kind == "env":
        spec["envs"] = [
            {"name": "HF_HOME", "value": "/models/hf"},
            {"name": EDIT_ENV, "value": str(value)},
        ]
    elif kind == "replicas":
        service = services[names[value % len(names)]]
        service["replicas"] = 1 + (service.get("replicas", 1) % MAX_REPLICAS)
    elif kind == "service_removed" and len(services) > 2:
        removable = [name for name in names if name != KEPT_SERVICE]
        del services[removable[value % len(removable)]]
    elif kind in ("service_removed", "service_added"):
        services[f"Extra{value % 100}"] = _service("worker", "dynamo.vllm")
        kind = "service_added"
    return kind, result


def merge_patch(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The JSON merge patch (RFC 7386) that turns `before`'s spec into `after`'s."""
    return {"spec": _diff(before["spec"], after["spec"])}


def _diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    patch: dict[str, Any] = {key: None for key in before if key not in after}
    for key, value in after.items():
        old = before.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            nested = _diff(old, value)
            if nested:
                patch[key] = nested
        elif value != old:
            patch[key] = value
    return patch
