"""`dynamo-operator run` converges real graphs: what a user sees with `kubectl get`.

One operator process for the module, started as a user starts it; each test deploys graphs in
its own namespace: the sample graph (with its PVC, a LeaderWorkerSet for its two-node decode
worker, and deletion garbage-collecting everything but the claim), the documented graphs, the
multinode graph, a graph asking for more GPUs than the cluster has, and the namespace's Kubernetes
discovery account shared by its graphs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from dynamo_operator.constants import DISCOVERY_ACCOUNT_NAME
from e2e.localcluster import condition, is_condition_true
from e2e.support import kwok_only
from e2e.support.graphs import (
    EXAMPLE,
    FIXTURES,
    World,
    check_converged_children,
    load_graph,
    persistent_volume,
    seed_graph,
    small_graph,
)
from e2e.support.kinds import COMPONENT, GRAPH, LEADER_WORKER_SET, PERSISTENT_VOLUME
from e2e.support.polling import eventually
from manager.runtime.kinds import (
    DEPLOYMENT,
    INGRESS,
    PERSISTENT_VOLUME_CLAIM,
    ROLE,
    ROLE_BINDING,
    SECRET,
    SERVICE,
    SERVICE_ACCOUNT,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def converged_component(world: World, name: str) -> dict[str, Any]:
    """Wait until the DCD is Available for its latest generation, and return it."""

    async def available() -> dict[str, Any] | None:
        dcd = await world.get(COMPONENT, name)
        if dcd is None:
            return None
        status = dcd.get("status") or {}
        observed = status.get("observedGeneration") == dcd["metadata"].get("generation")
        return dcd if observed and is_condition_true(dcd, "Available") else None

    return await eventually(f"DCD {world.namespace}/{name} available", available)


@pytest.fixture
async def volumes(world: World) -> AsyncIterator[list[str]]:
    """Claims to back with a PersistentVolume each (the volumes are removed afterwards)."""
    claims: list[str] = []
    yield claims
    for claim in claims:
        await world.delete(PERSISTENT_VOLUME, f"{world.namespace}-{claim}")


async def provide_volume(world: World, volumes: list[str], claim: str) -> None:
    await world.create(
        PERSISTENT_VOLUME,
        persistent_volume(f"{world.namespace}-{claim}", world.namespace, claim),
    )
    volumes.append(claim)


@kwok_only.PODS_READY
async def test_sample_graph_converges(world: World, volumes: list[str]) -> None:
    await provide_volume(world, volumes, "model-cache")
    await world.create(GRAPH, load_graph(EXAMPLE))

    graph = await world.converged("vllm-disagg")

    await check_converged_children(world, graph)
    assert graph["status"]["services"]["VllmDecodeWorker"]["componentKind"] == "LeaderWorkerSet"
    claim = await world.get(PERSISTENT_VOLUME_CLAIM, "model-cache")
    assert claim is not None
    assert claim["status"]["phase"] == "Bound"


@kwok_only.PODS_READY
async def test_seed_graphs_converge(world: World) -> None:
    for file_name in ("disagg.yaml", "llm-agg.yaml"):
        await world.create(GRAPH, seed_graph(file_name))

    for graph in await world.all_converged(["disagg", "llm-agg"]):
        await check_converged_children(world, graph)
        ready = condition(graph, "Ready")
        assert (ready["reason"], ready["observedGeneration"]) == ("all_resources_are_ready", 1)


@kwok_only.PODS_READY
async def test_multinode_graph_gets_one_leader_worker_set_per_replica(
    world: World, volumes: list[str]
) -> None:
    graph = load_graph(FIXTURES / "vllm-disagg-multinode.yaml")
    services = graph["spec"]["services"]
    # Two groups of two nodes with a GPU each, and the two prefill workers: 6 of the cluster's
    # 16 GPUs, which leaves room for the sample graph of another test still being deleted.
    services["VllmDecodeWorker"]["replicas"] = 2
    services["VllmDecodeWorker"]["resources"]["limits"]["gpu"] = "1"
    services["Frontend"]["replicas"] = 1
    await provide_volume(world, volumes, "model-cache")
    await provide_volume(world, volumes, "model-cache-compile")
    await world.create(
        PERSISTENT_VOLUME_CLAIM,
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "model-cache-compile"},
            "spec": {
                "storageClassName": "standard",
                "accessModes": ["ReadWriteMany"],
                "resources": {"requests": {"storage": "10Gi"}},
            },
        },
    )
    await world.create(
        SECRET,
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "hf-token-secret"},
            "stringData": {"HF_TOKEN": "not-a-token"},
        },
    )
    await world.create(GRAPH, graph)

    graph = await world.converged("vllm-disagg")

    await check_converged_children(world, graph)
    assert await world.names(LEADER_WORKER_SET) == {
        "vllm-disagg-vllmdecodeworker-0",
        "vllm-disagg-vllmdecodeworker-1",
    }
    summary = graph["status"]["services"]["VllmDecodeWorker"]
    assert (summary["componentKind"], summary["replicas"]) == ("LeaderWorkerSet", 2)
    assert await world.names(INGRESS) == {"vllm-disagg-frontend"}


@kwok_only.PODS_READY
async def test_a_graph_needing_more_gpus_than_the_nodes_have_says_why(world: World) -> None:
    graph = small_graph("too-big")
    graph["spec"]["services"]["VllmWorker"]["resources"] = {"limits": {"gpu": "16"}}
    await world.create(GRAPH, graph)

    async def unschedulable() -> dict[str, Any] | None:
        found = await world.get(GRAPH, "too-big")
        ready = condition(found or {}, "Ready")
        return found if "Insufficient nvidia.com/gpu" in ready.get("message", "") else None

    found = await eventually("the graph's Ready message naming the GPU shortage", unschedulable)

    ready = condition(found, "Ready")
    assert found["status"]["state"] == "pending"
    assert ready["status"] == "False"
    assert "too-big-vllmworker" in ready["message"]
    worker = await world.get(COMPONENT, "too-big-vllmworker")
    assert worker is not None
    available = condition(worker, "Available")
    assert (available["status"], available["reason"]) == ("False", "Unschedulable")
    frontend = await converged_component(world, "too-big-frontend")
    assert is_condition_true(frontend, "Available")


# Last in the module: the garbage collector notices kinds installed shortly before (the CRDs of
# this session) only at its next discovery resync, so deleting a graph earlier waits for that.
@kwok_only.PODS_READY
async def test_deleting_the_sample_graph_collects_its_children_and_keeps_the_claim(
    world: World, volumes: list[str]
) -> None:
    await provide_volume(world, volumes, "model-cache")
    await world.create(GRAPH, load_graph(EXAMPLE))
    await world.converged("vllm-disagg")
    claim = await world.get(PERSISTENT_VOLUME_CLAIM, "model-cache")
    assert claim is not None
    assert not claim["metadata"].get("ownerReferences"), "the claim is created unowned"

    await world.delete(GRAPH, "vllm-disagg")

    async def nothing_left() -> bool:
        kinds = (COMPONENT, DEPLOYMENT, SERVICE, LEADER_WORKER_SET)
        return not any([await world.names(kind) for kind in kinds])

    await eventually("the graph's children garbage-collected", nothing_left, within=180)
    claim = await world.get(PERSISTENT_VOLUME_CLAIM, "model-cache")
    assert claim is not None
    assert claim["metadata"].get("deletionTimestamp") is None
    assert not claim["metadata"].get("ownerReferences")


@kwok_only.PODS_READY
async def test_the_graphs_of_a_namespace_share_one_discovery_account_that_outlives_them(
    world: World,
) -> None:
    """Kubernetes discovery (the operator runs without --etcdAddr): every graph's pods run as
    the namespace's `dynamo-k8s-discovery`, owned by no graph and allowed exactly what Dynamo's
    runtime asks, in the namespace; a user's own account is kept; deleting a graph leaves the
    account to the others."""
    own_account = small_graph("own-account")
    worker = own_account["spec"]["services"]["VllmWorker"]
    worker["extraPodSpec"]["serviceAccountName"] = "my-account"
    await world.create(GRAPH, small_graph("first"))
    await world.create(GRAPH, own_account)
    await world.all_converged(["first", "own-account"])

    account = await world.get(SERVICE_ACCOUNT, DISCOVERY_ACCOUNT_NAME)
    assert account is not None
    assert not account["metadata"].get("ownerReferences")
    role = await world.get(ROLE, f"{DISCOVERY_ACCOUNT_NAME}-role")
    binding = await world.get(ROLE_BINDING, f"{DISCOVERY_ACCOUNT_NAME}-binding")
    assert role is not None
    assert binding is not None
    assert sorted((tuple(r["resources"]), tuple(r["verbs"])) for r in role["rules"]) == [
        (("dynamoworkermetadatas",), ("list", "watch", "create", "patch")),
        (("endpointslices",), ("list", "watch")),
    ]
    assert binding["roleRef"]["name"] == f"{DISCOVERY_ACCOUNT_NAME}-role"
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": DISCOVERY_ACCOUNT_NAME, "namespace": world.namespace}
    ]
    for obj in (role, binding):
        assert [ref["uid"] for ref in obj["metadata"]["ownerReferences"]] == [
            account["metadata"]["uid"]
        ]
    assert {obj["metadata"]["name"] for obj in await world.list(SERVICE_ACCOUNT)} <= {
        DISCOVERY_ACCOUNT_NAME,
        "default",
    }
    accounts = {
        deployment["metadata"]["name"]: deployment["spec"]["template"]["spec"].get(
            "serviceAccountName"
        )
        for deployment in await world.list(DEPLOYMENT)
    }
    assert accounts == {
        "first-frontend": DISCOVERY_ACCOUNT_NAME,
        "first-vllmworker": DISCOVERY_ACCOUNT_NAME,
        "own-account-frontend": DISCOVERY_ACCOUNT_NAME,
        "own-account-vllmworker": "my-account",
    }
    services = {s["metadata"]["name"]: s["metadata"]["labels"] for s in await world.list(SERVICE)}
    assert services["first-vllmworker"]["nvidia.com/dynamo-discovery-enabled"] == "true"
    assert services["first-frontend"]["nvidia.com/dynamo-discovery-backend"] == "kubernetes"
    assert "nvidia.com/dynamo-discovery-enabled" not in services["first-frontend"]

    await world.delete(GRAPH, "first")

    async def first_collected() -> bool:
        return not [d for d in await world.names(DEPLOYMENT) if d.startswith("first-")]

    await eventually("the first graph's Deployments collected", first_collected, within=180)
    kept = await world.get(SERVICE_ACCOUNT, DISCOVERY_ACCOUNT_NAME)
    assert kept is not None
    assert kept["metadata"]["uid"] == account["metadata"]["uid"]
