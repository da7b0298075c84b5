"""Graphs that are wrong, and children a user edits by hand: `dynamo-operator run` says what is
wrong once, keeps the other graphs going, and puts hand-edited children back.

One operator process for the module.
"""

from __future__ import annotations

from typing import Any

import pytest

from e2e.localcluster import condition
from e2e.support import kwok_only
from e2e.support.graphs import USER, World, main_env, small_graph
from e2e.support.kinds import COMPONENT, GRAPH
from e2e.support.polling import eventually
from manager.runtime.kinds import DEPLOYMENT, SERVICE

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@kwok_only.PODS_READY
async def test_an_invalid_graph_fails_alone_once_and_converges_when_fixed(world: World) -> None:
    # minReplicas above maxReplicas: the CRD schema admits it, the validators do not (and the
    # webhooks are off, so the API server stores it).
    invalid = small_graph("invalid")
    invalid["spec"]["services"]["VllmWorker"]["autoscaling"] = {
        "enabled": True,
        "minReplicas": 3,
        "maxReplicas": 1,
    }
    await world.create(GRAPH, invalid)
    await world.create(GRAPH, small_graph("valid"))

    async def failed() -> dict[str, Any] | None:
        graph = await world.graph("invalid")
        return graph if (graph.get("status") or {}).get("state") == "failed" else None

    graph = await eventually("the invalid graph failed", failed)
    await world.converged("valid")
    warnings = await eventually(
        "the ValidationFailed Event", lambda: world.events("invalid", reason="ValidationFailed")
    )

    ready = condition(graph, "Ready")
    assert (ready["status"], ready["reason"]) == ("False", "ValidationFailed")
    assert "spec.services.VllmWorker.autoscaling.minReplicas" in ready["message"]
    assert graph["status"]["observedGeneration"] == graph["metadata"]["generation"]
    assert await world.names(COMPONENT) == {"valid-frontend", "valid-vllmworker"}
    [warning] = warnings
    assert warning["type"] == "Warning"
    assert warning.get("count", 1) == 1
    assert "spec.services.VllmWorker.autoscaling.minReplicas" in warning["message"]

    await world.patch(
        GRAPH, "invalid", {"spec": {"services": {"VllmWorker": {"autoscaling": None}}}}
    )
    fixed = await world.converged("invalid")

    assert condition(fixed, "Ready")["reason"] == "all_resources_are_ready"
    [warning] = await world.events("invalid", reason="ValidationFailed")
    assert warning.get("count", 1) == 1, "no repeated Warning while it was invalid"


@kwok_only.PODS_READY
async def test_hand_edited_children_are_put_back(world: World) -> None:
    await world.create(GRAPH, small_graph("edited"))
    await world.converged("edited")
    name = "edited-vllmworker"

    await world.patch(DEPLOYMENT, name, {"spec": {"replicas": 3}})

    async def scaled_back() -> bool:
        deployment = await world.get(DEPLOYMENT, name)
        return deployment is not None and deployment["spec"]["replicas"] == 1

    await eventually("the hand-scaled Deployment back at 1 replica", scaled_back)

    deployment = await world.get(DEPLOYMENT, name)
    assert deployment is not None
    env = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    index = next(i for i, entry in enumerate(env) if entry["name"] == "HF_HOME")
    path = f"/spec/template/spec/containers/0/env/{index}"
    await world.rest.json_patch(
        DEPLOYMENT,
        world.namespace,
        name,
        [
            {"op": "test", "path": f"{path}/name", "value": "HF_HOME"},
            {"op": "replace", "path": f"{path}/value", "value": "/somewhere/else"},
        ],
        field_manager=USER,
    )

    async def env_restored() -> bool:
        deployment = await world.get(DEPLOYMENT, name)
        template = (deployment or {})["spec"]["template"]["spec"]
        return main_env(template).get("HF_HOME") == "/models/hf"

    await eventually("the hand-edited env value restored", env_restored)

    service = await world.get(SERVICE, name)
    assert service is not None
    await world.delete(SERVICE, name)

    async def service_recreated() -> dict[str, Any] | None:
        found = await world.get(SERVICE, name)
        return found if found and found["metadata"]["uid"] != service["metadata"]["uid"] else None

    recreated = await eventually("the deleted Service recreated", service_recreated)

    assert recreated["spec"]["ports"] == service["spec"]["ports"]
    assert recreated["spec"]["selector"] == service["spec"]["selector"]
    graph = await world.converged("edited")
    assert graph["status"]["services"]["VllmWorker"]["replicas"] == 1
