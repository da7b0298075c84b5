"""Runs in the planner's own virtual environment (``ai-dynamo==1.6.1``), not in ours: one call of
the planner's Kubernetes client per invocation, its answer printed as one JSON line.

    python driver.py NAMESPACE scale GRAPH COMPONENT REPLICAS
    python driver.py NAMESPACE status GRAPH COMPONENT...
    python driver.py NAMESPACE wait GRAPH

``dynamo.planner``'s package ``__init__`` imports the planner's whole world (its load predictor
needs ``aisimulate``, which PyPI cannot install: the same reason our Dynamo image installs
ai-dynamo without its dependencies). The client module needs none of it, so the packages above it
are registered empty and the client's own files (``kubernetes_api.py``, ``errors.py``,
``monitoring/dgd_services.py``, ``config/defaults.py``) load as shipped, unchanged.
"""

from __future__ import annotations

import asyncio
import json
import sys
import types
from pathlib import Path
from typing import Any


def _planner_client() -> Any:
    import dynamo  # type: ignore[import-not-found]  # the planner's environment only

    root = Path(dynamo.__path__[0]) / "planner"
    for name, sub in (
        ("dynamo.planner", ""),
        ("dynamo.planner.config", "config"),
        ("dynamo.planner.monitoring", "monitoring"),
        ("dynamo.planner.connectors", "connectors"),
        ("dynamo.planner.connectors.clients", "connectors/clients"),
    ):
        package = types.ModuleType(name)
        package.__path__ = [str(root / sub)]
        sys.modules[name] = package
    from dynamo.planner.connectors.clients.kubernetes_api import (  # type: ignore[import-not-found]
        KubernetesAPI,
    )

    return KubernetesAPI


def main(namespace: str, command: str, graph: str, *rest: str) -> dict[str, Any]:
    client = _planner_client()(namespace)
    if command == "scale":
        component, replicas = rest
        client.update_service_replicas(graph, component, int(replicas))
        return {"target": client.get_service_replica_target(graph, component)}
    if command == "status":
        deployment = client.get_graph_deployment(graph)
        blocking, reason = client.is_rolling_update_blocking_settlement(deployment)
        return {
            "ready": client.is_deployment_ready(deployment),
            "generation_observed": client.is_spec_generation_observed(deployment),
            "rolling_update_blocking": blocking,
            "rolling_update_reason": reason,
            "components": {
                name: list(client.get_service_replica_status(deployment, name)) for name in rest
            },
            "targets": {name: client.get_service_replica_target(graph, name) for name in rest},
            "listed": [d["metadata"]["name"] for d in client.list_graph_deployments()],
        }
    if command == "wait":
        coroutine = client.wait_for_graph_deployment_ready(
            graph, include_planner=False, max_attempts=120, delay_seconds=1
        )
        deployment = asyncio.run(coroutine)
        return {"generation": deployment["metadata"]["generation"]}
    raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:])), flush=True)
