"""Changing a running graph: what `dynamo-operator run` does with a user's edits.

One operator process for the module. An env change rolls the Deployments out and the graph reads
`successful` again only once the rollout finished (never in between, as the watch of the graph
shows); a stuck rollout keeps it pending while the old pods serve; a removed service loses its
DCD and children; labels and annotations reach the children; a registry's pull Secret reaches
the pod templates of the components whose image comes from that registry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from e2e.localcluster import condition
from e2e.support import kwok_only
from e2e.support.graphs import World, is_pod_ready, main_env, recorded, small_graph
from e2e.support.kinds import COMPONENT, GRAPH
from e2e.support.polling import eventually
from manager.runtime.kinds import DEPLOYMENT, POD, SECRET, SERVICE

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


def states_of(versions: list[dict[str, Any]], generation: int) -> list[str]:
    """The graph's `state` in each written version that describes `generation`."""
    return [
        version["status"]["state"]
        for version in versions
        if (version.get("status") or {}).get("observedGeneration") == generation
    ]


def revision(obj: Mapping[str, Any]) -> int:
    """The object's resourceVersion as a number: the etcd revision of its write, which orders
    writes across objects (Kubernetes calls it opaque; every API server stores etcd's)."""
    return int(obj["metadata"]["resourceVersion"])


def rollout_finished(deployment: Mapping[str, Any]) -> bool:
    """`kubectl rollout status` would say done: the latest spec observed, every replica of it
    updated and available, none of an older template left."""
    spec, status = deployment["spec"], deployment.get("status") or {}
    return (
        status.get("observedGeneration") == deployment["metadata"]["generation"]
        and status.get("updatedReplicas") == spec["replicas"]
        and status.get("replicas") == spec["replicas"]
        and status.get("availableReplicas") == spec["replicas"]
    )


@kwok_only.PODS_READY
async def test_an_env_change_rolls_out_before_the_graph_reads_successful(world: World) -> None:
    await world.create(GRAPH, small_graph("rollout", replicas=2))
    await world.converged("rollout")
    before = {d["metadata"]["name"]: d for d in await world.list(DEPLOYMENT)}
    envs = [{"name": "HF_HOME", "value": "/models/hf"}, {"name": "ROLLOUT", "value": "1"}]

    async with (
        recorded(world.rest, DEPLOYMENT, world.namespace) as deployment_versions,
        recorded(world.rest, GRAPH, world.namespace) as graph_versions,
    ):
        patched = await world.patch(GRAPH, "rollout", {"spec": {"envs": envs}})
        await world.converged("rollout")
        deployments = await world.list(DEPLOYMENT)

    generation = patched["metadata"]["generation"]
    states = states_of(graph_versions, generation)
    assert states[0] == "pending", states
    first_success = states.index("successful")
    assert set(states[first_success:]) == {"successful"}, f"success, then not: {states}"
    # Whenever the graph read successful, every Deployment (as it was at that write) had
    # finished rolling out the new template.
    for graph in graph_versions:
        status = graph.get("status") or {}
        if (status.get("observedGeneration"), status.get("state")) != (generation, "successful"):
            continue
        at_that_time = dict(before)
        for deployment in deployment_versions:
            if revision(deployment) < revision(graph):
                at_that_time[deployment["metadata"]["name"]] = deployment
        for name, deployment in at_that_time.items():
            assert rollout_finished(deployment), f"{name} still rolling out: {deployment['status']}"
            assert main_env(deployment["spec"]["template"]["spec"]).get("ROLLOUT") == "1", name
    for deployment in deployments:
        name = deployment["metadata"]["name"]
        assert deployment["metadata"]["generation"] == before[name]["metadata"]["generation"] + 1
        assert rollout_finished(deployment)
    pods = await world.list(POD)
    live = [pod for pod in pods if not pod["metadata"].get("deletionTimestamp")]
    assert len(live) == 4
    assert all(main_env(pod["spec"]).get("ROLLOUT") == "1" for pod in live)


@kwok_only.PODS_READY
async def test_a_stuck_rollout_keeps_the_graph_pending_while_old_pods_serve(world: World) -> None:
    await world.create(GRAPH, small_graph("stuck", replicas=2))
    await world.converged("stuck")
    nowhere = {"extraPodSpec": {"nodeSelector": {"example.com/no-such-node": "true"}}}

    async with recorded(world.rest, GRAPH, world.namespace) as versions:
        patched = await world.patch(GRAPH, "stuck", {"spec": {"services": {"VllmWorker": nowhere}}})

        async def unschedulable() -> dict[str, Any] | None:
            graph = await world.graph("stuck")
            message = condition(graph, "Ready").get("message", "")
            return graph if "didn't match Pod's node affinity/selector" in message else None

        stuck = await eventually("the graph naming the unschedulable new pod", unschedulable)

    assert stuck["status"]["state"] == "pending"
    assert "successful" not in states_of(versions, patched["metadata"]["generation"])
    old_pods = [
        pod
        for pod in await world.list(POD, labels={"nvidia.com/selector": "stuck-vllmworker"})
        if not pod["spec"].get("nodeSelector") and is_pod_ready(pod)
    ]
    assert old_pods, "the old pods still serve while the rollout is stuck"

    await world.patch(
        GRAPH,
        "stuck",
        {"spec": {"services": {"VllmWorker": {"extraPodSpec": {"nodeSelector": None}}}}},
    )
    await world.converged("stuck")


@kwok_only.PODS_READY
async def test_removing_a_service_deletes_its_component_and_children(world: World) -> None:
    services = {"Frontend": "frontend", "Prefill": "prefill", "Decode": "decode"}
    await world.create(GRAPH, small_graph("shrink", services))
    await world.converged("shrink")

    await world.patch(GRAPH, "shrink", {"spec": {"services": {"Prefill": None}}})

    async def prefill_gone() -> bool:
        left = [
            await world.get(kind, "shrink-prefill") for kind in (COMPONENT, DEPLOYMENT, SERVICE)
        ]
        return left == [None, None, None]

    await eventually("the Prefill component and its children deleted", prefill_gone, within=180)
    graph = await world.converged("shrink")
    assert set(graph["status"]["services"]) == {"Frontend", "Decode"}
    assert await world.names(COMPONENT) == {"shrink-frontend", "shrink-decode"}
    assert await world.names(DEPLOYMENT) == {"shrink-frontend", "shrink-decode"}
    deleted = await world.events("shrink", reason="Deleted")
    assert any("shrink-prefill" in event["message"] for event in deleted)


@kwok_only.PODS_READY
async def test_labels_and_annotations_reach_the_children(world: World) -> None:
    await world.create(GRAPH, small_graph("labelled"))
    await world.converged("labelled")

    async def children_show(expected: dict[str, str | None]) -> bool:
        for kind in (DEPLOYMENT, SERVICE):
            child = await world.get(kind, "labelled-vllmworker") or {}
            metadata = child.get("metadata") or {}
            found = {**(metadata.get("labels") or {}), **(metadata.get("annotations") or {})}
            if kind is DEPLOYMENT:
                template = child["spec"]["template"]["metadata"]
                found = {**template.get("labels", {}), **template.get("annotations", {}), **found}
            if any(found.get(key) != value for key, value in expected.items()):
                return False
        return True

    # A graph annotation: the metadata changes, the generation does not (upstream bug #10813).
    await world.patch(
        GRAPH, "labelled", {"metadata": {"annotations": {"nvidia.com/enable-metrics": "false"}}}
    )
    await eventually(
        "metrics turned off on the children",
        lambda: children_show({"nvidia.com/metrics-enabled": "false"}),
    )

    service_metadata = {"labels": {"team": "inference"}, "annotations": {"example.com/owner": "a"}}
    await world.patch(GRAPH, "labelled", {"spec": {"services": {"VllmWorker": service_metadata}}})
    await eventually(
        "the service's label and annotation on its children",
        lambda: children_show({"team": "inference", "example.com/owner": "a"}),
    )

    await world.patch(GRAPH, "labelled", {"spec": {"services": {"VllmWorker": {"labels": None}}}})
    await eventually(
        "the removed label gone from the children", lambda: children_show({"team": None})
    )
    await world.converged("labelled")


def pull_secret(name: str, registry: str, secret_type: str) -> dict[str, Any]:
    config = {"auths": {registry: {"auth": "dXNlcjpwYXNz"}}}
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name},
        "type": secret_type,
        "stringData": {".dockerconfigjson": json.dumps(config)},
    }


@kwok_only.PODS_READY
async def test_a_registry_pull_secret_reaches_the_pod_templates_of_its_images(
    world: World,
) -> None:
    graph = small_graph("pulling")
    frontend = graph["spec"]["services"]["Frontend"]["extraPodSpec"]["mainContainer"]
    frontend["image"] = "dynamo/frontend:0.7.0"  # Docker Hub; the worker's comes from nvcr.io
    await world.create(GRAPH, graph)
    await world.converged("pulling")

    async def pull_secrets(name: str) -> list[str]:
        deployment = await world.get(DEPLOYMENT, name) or {}
        secrets = deployment["spec"]["template"]["spec"].get("imagePullSecrets") or []
        return [secret["name"] for secret in secrets]

    async def pulls_with(name: str, expected: list[str]) -> bool:
        return await pull_secrets(name) == expected

    # An Opaque Secret is no pull Secret, whatever it holds.
    await world.create(SECRET, pull_secret("nvcr-opaque", "nvcr.io", "Opaque"))
    await world.create(SECRET, pull_secret("hub", "docker.io", "kubernetes.io/dockerconfigjson"))
    await eventually(
        "the Docker Hub Secret on the frontend",
        lambda: pulls_with("pulling-frontend", ["hub"]),
    )
    await world.create(SECRET, pull_secret("nvcr", "nvcr.io", "kubernetes.io/dockerconfigjson"))
    await eventually(
        "the nvcr.io Secret on the worker", lambda: pulls_with("pulling-vllmworker", ["nvcr"])
    )

    assert await pull_secrets("pulling-frontend") == ["hub"]
    await world.converged("pulling")
