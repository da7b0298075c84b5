"""Scaling one service of a graph through its DynamoGraphDeploymentScalingAdapter, as HPA, KEDA,
the planner and `kubectl scale` do: the adapter a graph's service asks for is created with the
service's replicas; scaling the adapter (its scale subresource) moves the graph's service, its
Deployment and the adapter's status; the adapter goes when the service stops asking for one, or
leaves the graph.

One operator process for the module (the conftest's); `kubectl` is the test cluster's own.
"""

from __future__ import annotations

import subprocess
from functools import partial
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest

from e2e.localcluster import ensure_binaries
from e2e.support.graphs import World, component_name, small_graph
from e2e.support.polling import eventually
from manager.app.kinds import GRAPH, SCALING_ADAPTER
from manager.runtime.kinds import DEPLOYMENT, POD

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ADAPTER = "llm-vllmworker"
SELECTOR = {
    "nvidia.com/dynamo-component": "VllmWorker",
    "nvidia.com/dynamo-graph-deployment-name": "llm",
}


async def kubectl(kubeconfig: Path, *arguments: str) -> str:
    binary = ensure_binaries(show_progress=False).kube("kubectl")
    done = await anyio.to_thread.run_sync(
        partial(
            subprocess.run,
            [str(binary), f"--kubeconfig={kubeconfig}", *arguments],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    )
    assert done.returncode == 0, f"kubectl {' '.join(arguments)}: {done.stderr}"
    return done.stdout


async def create_scaled_graph(world: World, replicas: int = 2) -> dict[str, Any]:
    """Graph `llm` whose worker scales through an adapter; the adapter, once it exists."""
    graph = small_graph("llm", replicas=replicas)
    graph["spec"]["services"]["VllmWorker"]["scalingAdapter"] = {"enabled": True}
    await world.create(GRAPH, graph)
    return await eventually(f"adapter {ADAPTER}", lambda: world.get(SCALING_ADAPTER, ADAPTER))


async def gone(world: World, name: str) -> bool:
    return await world.get(SCALING_ADAPTER, name) is None


async def test_the_adapter_is_seeded_with_the_services_replicas(world: World) -> None:
    adapter = await create_scaled_graph(world, replicas=2)

    graph = await world.graph("llm")
    assert adapter["spec"] == {
        "replicas": 2,
        "dgdRef": {"name": "llm", "serviceName": "VllmWorker"},
    }
    assert adapter["metadata"]["labels"] == SELECTOR
    [owner] = adapter["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["uid"], owner["controller"]) == (
        "DynamoGraphDeployment",
        graph["metadata"]["uid"],
        True,
    )
    assert await world.get(SCALING_ADAPTER, "llm-frontend") is None  # it asks for none

    async def reported() -> dict[str, Any] | None:
        live = await world.get(SCALING_ADAPTER, ADAPTER)
        return (live or {}).get("status") or None

    assert await eventually("adapter status", reported) == {
        "replicas": 2,
        "selector": "nvidia.com/dynamo-component=VllmWorker,"
        "nvidia.com/dynamo-graph-deployment-name=llm",
    }


async def test_kubectl_scale_moves_the_graph_its_deployment_and_the_adapter_status(
    world: World, kubeconfig: Path
) -> None:
    await create_scaled_graph(world, replicas=1)

    await kubectl(kubeconfig, "-n", world.namespace, "scale", "dgdsa", ADAPTER, "--replicas", "3")

    async def graph_scaled() -> bool:
        graph = await world.graph("llm")
        return bool(graph["spec"]["services"]["VllmWorker"].get("replicas") == 3)

    async def deployment_scaled() -> bool:
        deployment = await world.get(DEPLOYMENT, component_name("llm", "VllmWorker"))
        return deployment is not None and deployment["spec"]["replicas"] == 3

    async def status_scaled() -> dict[str, Any] | None:
        status = ((await world.get(SCALING_ADAPTER, ADAPTER)) or {}).get("status") or {}
        return status if status.get("replicas") == 3 and status.get("lastScaleTime") else None

    await eventually("graph at 3 replicas", graph_scaled)
    await eventually("Deployment at 3 replicas", deployment_scaled)
    status = await eventually("adapter status at 3 replicas", status_scaled)
    # What an HPA reads through the scale subresource: the replicas and the pods they are.
    scale = await kubectl(
        kubeconfig,
        "-n",
        world.namespace,
        "get",
        "--raw",
        f"/apis/nvidia.com/v1alpha1/namespaces/{world.namespace}"
        f"/dynamographdeploymentscalingadapters/{ADAPTER}/scale",
    )
    assert '"replicas":3' in scale
    assert status["selector"] in scale

    async def three_pods() -> bool:
        return len(await world.list(POD, labels=SELECTOR)) == 3

    await eventually("the selector's 3 pods", three_pods)


async def test_turning_the_flag_off_deletes_the_adapter(world: World) -> None:
    await create_scaled_graph(world)

    await world.patch(
        GRAPH, "llm", {"spec": {"services": {"VllmWorker": {"scalingAdapter": {"enabled": False}}}}}
    )

    await eventually(f"adapter {ADAPTER} deleted", partial(gone, world, ADAPTER))


async def test_removing_the_service_deletes_its_adapter(world: World) -> None:
    await create_scaled_graph(world)

    await world.patch(GRAPH, "llm", {"spec": {"services": {"VllmWorker": None}}})

    await eventually(f"adapter {ADAPTER} deleted", partial(gone, world, ADAPTER))
    assert await world.get(GRAPH, "llm") is not None
