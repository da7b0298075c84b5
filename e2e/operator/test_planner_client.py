"""Dynamo's own planner client (``ai-dynamo==1.6.1``, its ``KubernetesAPI``, unchanged) drives a
graph the operator runs: it finds and reads the graph at v1beta1, judges it ready and stable from
its status, and scales one component through its scaling adapter's ``scale`` subresource and
another, which has none, through its JSON-patch fallback; the operator follows both ways.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from e2e.support import kwok_only
from e2e.support.graphs import World, beta_component, small_beta_graph
from e2e.support.kinds import GRAPH_BETA
from e2e.support.planner.client import PlannerClient
from e2e.support.polling import eventually
from manager.runtime.kinds import DEPLOYMENT

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

GRAPH = "planned"


def planned_graph() -> dict[str, Any]:
    """Upstream's v1beta1 disagg-planner example in shape, without the planner pod itself: the
    planner's client runs here, outside the cluster. The decode worker has a scaling adapter
    (what the planner scales through); prefill has none (its fallback)."""
    vllm = ["python3", "-m", "dynamo.vllm"]
    return small_beta_graph(
        GRAPH,
        [
            beta_component("Frontend", "frontend", vllm),
            beta_component("VllmDecodeWorker", "decode", vllm, scalingAdapter={}),
            beta_component("VllmPrefillWorker", "prefill", vllm),
        ],
    )


async def _in_thread(call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    return await anyio.to_thread.run_sync(call)


async def _deployment_replicas(world: World, name: str, replicas: int) -> None:
    async def scaled() -> bool:
        deployment = await world.get(DEPLOYMENT, name)
        return deployment is not None and deployment["spec"]["replicas"] == replicas

    await eventually(f"Deployment {name} at {replicas} replicas", scaled)


@kwok_only.PODS_READY
async def test_the_planner_reads_the_graph_and_scales_it_both_ways(
    world: World, kubeconfig: Path
) -> None:
    await world.create(GRAPH_BETA, planned_graph())
    await world.converged(GRAPH)
    planner = await anyio.to_thread.run_sync(PlannerClient, kubeconfig, world.namespace)
    workers = ("VllmDecodeWorker", "VllmPrefillWorker")

    status = await _in_thread(lambda: planner.status(GRAPH, *workers))
    assert status["listed"] == [GRAPH]
    assert status["ready"] is True
    assert status["generation_observed"] is True
    assert status["rolling_update_blocking"] is False
    assert status["components"] == {name: [1, True] for name in workers}, "1 serving, stable"

    # Through the adapter (planned-vllmdecodeworker), then the fallback (no adapter for prefill).
    assert (await _in_thread(lambda: planner.scale(GRAPH, "VllmDecodeWorker", 3)))["target"] == 3
    assert (await _in_thread(lambda: planner.scale(GRAPH, "VllmPrefillWorker", 2)))["target"] == 2
    await _deployment_replicas(world, f"{GRAPH}-vllmdecodeworker", 3)
    await _deployment_replicas(world, f"{GRAPH}-vllmprefillworker", 2)
    await _in_thread(lambda: planner.wait_ready(GRAPH))
    status = await _in_thread(lambda: planner.status(GRAPH, *workers))
    assert status["components"] == {"VllmDecodeWorker": [3, True], "VllmPrefillWorker": [2, True]}
    assert status["targets"] == {"VllmDecodeWorker": 3, "VllmPrefillWorker": 2}
    assert status["ready"] is True

    # And back down, the same two ways.
    await _in_thread(lambda: planner.scale(GRAPH, "VllmDecodeWorker", 1))
    await _in_thread(lambda: planner.scale(GRAPH, "VllmPrefillWorker", 1))
    await _deployment_replicas(world, f"{GRAPH}-vllmdecodeworker", 1)
    await _deployment_replicas(world, f"{GRAPH}-vllmprefillworker", 1)
    await _in_thread(lambda: planner.wait_ready(GRAPH))
    status = await _in_thread(lambda: planner.status(GRAPH, *workers))
    assert status["components"] == {name: [1, True] for name in workers}
    stored = (await world.graph(GRAPH))["spec"]["services"]
    assert {name: stored[name]["replicas"] for name in workers} == dict.fromkeys(workers, 1)
