"""Changing a running graph: what `dynamo-operator run` does with a user's edits.

One operator process for the module. An env change rolls the Deployments out and the graph reads
`successful` again only once the rollout finished (never in between, as the watch of the graph
shows); a stuck rollout keeps it pending while the old pods serve; a removed service loses its
DCD and children; labels and annotations reach the children; a registry's pull Secret reaches
the pod templates of the components whose image comes from that registry.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.graphs import (
    COMPONENT,
    GRAPH,
    World,
    condition,
    eventually,
    main_env,
    recorded,
    small_graph,
)
from e2e.operator_process import OperatorProcess, running_operator
from manager.client import RestClient
from manager.kinds import DEPLOYMENT, POD, SECRET, SERVICE

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture(scope="module")
def operator(
    kubeconfig: Path, installed_crds: list[Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OperatorProcess]:
    with running_operator(kubeconfig, tmp_path_factory.mktemp("operator")) as process:
        yield process


@pytest.fixture
async def world(api: Any, namespace: str, operator: OperatorProcess) -> World:
    return World(RestClient.for_api(api), namespace)


def states_of(versions: list[dict[str, Any]], generation: int) -> list[str]:
    """The graph's `state` in each written version that describes `generation`."""
    return [
        version["status"]["state"]
        for version in versions
        if (version.get("status") or {}).get("observedGeneration") == generation
    ]


async def test_an_env_change_rolls_out_before_the_graph_reads_successful(world: World) -> None:
    await world.create(GRAPH, small_graph("rollout", replicas=2))
    await world.converged("rollout")
    generations = {
        d["metadata"]["name"]: d["metadata"]["generation"] for d in await world.list(DEPLOYMENT)
    }
    envs = [{"name": "HF_HOME", "value": "/models/hf"}, {"name": "ROLLOUT", "value": "1"}]

    async with (
        recorded(world.rest, DEPLOYMENT, world.namespace) as dversions,
        recorded(world.rest, GRAPH, world.namespace) as versions,
    ):
        generation = (await world.patch(GRAPH, "rollout", {"spec": {"envs": envs}}))["metadata"][
            "generation"
        ]
        await world.converged("rollout")
        deployments = await world.list(DEPLOYMENT)

    states = states_of(versions, generation)
    import json as j

    prev = {}
    for d in dversions:
        n = d["metadata"]["name"]
        g = d["metadata"]["generation"]
        if prev.get(n, (0,))[0] != g:
            print(
                "DEPLOY",
                n,
                g,
                d["metadata"]["resourceVersion"],
                j.dumps(d["spec"]["template"])[:2000],
                [
                    (m["manager"], m["operation"], m.get("time"))
                    for m in d["metadata"].get("managedFields", [])
                ],
            )
            prev[n] = (g,)
    print(
        "STATES",
        states,
        [
            (
                v["status"].get("observedGeneration"),
                v["status"].get("state"),
                v["status"]["conditions"][0]["message"][:150],
            )
            for v in versions
            if v.get("status")
        ],
    )
    assert states[0] == "pending", states
    assert states[states.index("successful") :] == ["successful"] * (
        len(states) - states.index("successful")
    ), f"the graph read successful before its rollout finished: {states}"
    for deployment in deployments:
        name, status = deployment["metadata"]["name"], deployment["status"]
        assert deployment["metadata"]["generation"] == generations[name] + 1, "rolled out"
        assert status["observedGeneration"] == deployment["metadata"]["generation"]
        assert status["updatedReplicas"] == status["availableReplicas"] == 2
        assert main_env(deployment["spec"]["template"]["spec"])["ROLLOUT"] == "1"
    pods = await world.list(POD)
    live = [pod for pod in pods if not pod["metadata"].get("deletionTimestamp")]
    assert all(main_env(pod["spec"]).get("ROLLOUT") == "1" for pod in live)


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
        if not pod["spec"].get("nodeSelector") and condition(pod, "Ready").get("status") == "True"
    ]
    assert old_pods, "the old pods still serve while the rollout is stuck"

    await world.patch(
        GRAPH,
        "stuck",
        {"spec": {"services": {"VllmWorker": {"extraPodSpec": {"nodeSelector": None}}}}},
    )
    await world.converged("stuck")


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


async def test_a_registry_pull_secret_reaches_the_pod_templates_of_its_images(
    world: World,
) -> None:
    await world.create(GRAPH, small_graph("pulling"))
    await world.converged("pulling")

    # Ignored: another registry's pull Secret, and an Opaque Secret holding nvcr.io credentials.
    await world.create(
        SECRET, pull_secret("docker-hub", "docker.io", "kubernetes.io/dockerconfigjson")
    )
    await world.create(SECRET, pull_secret("nvcr-opaque", "nvcr.io", "Opaque"))
    await world.create(SECRET, pull_secret("nvcr", "nvcr.io", "kubernetes.io/dockerconfigjson"))

    async def templates_pull_with_nvcr() -> list[Any] | None:
        found = [
            d["spec"]["template"]["spec"].get("imagePullSecrets")
            for d in await world.list(DEPLOYMENT)
        ]
        return found if all(found) else None

    found = await eventually("imagePullSecrets on both components", templates_pull_with_nvcr)
    assert found == [[{"name": "nvcr"}], [{"name": "nvcr"}]]
    await world.converged("pulling")
