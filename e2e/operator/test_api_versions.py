"""Both API versions on the real API server: what a user writes at one reads at the other.

Graphs are stored at v1alpha1 (the storage version); the API server converts every v1beta1 read,
write, patch and watch through the conversion webhook (`dynamo-operator webhook-server
--configure-crd-conversion`, the session's). The operator reads v1alpha1 only, so it converges a
graph written at v1beta1 and keeps reconciling while the webhook is away; only v1beta1 reads fail
then, with the API server's message naming the webhook.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import anyio
import kr8s
import pytest

from e2e.support import kwok_only
from e2e.support.conversion import ConversionServer
from e2e.support.graphs import IMAGE, World, beta_component, small_beta_graph, small_graph
from e2e.support.kinds import GRAPH, GRAPH_BETA
from e2e.support.polling import eventually
from manager.runtime.client import ApiError
from manager.runtime.kinds import CUSTOM_RESOURCE_DEFINITION, DEPLOYMENT

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

USER = "e2e-user"


def beta_graph(name: str) -> dict[str, Any]:
    """Upstream's v1beta1 mocker disagg example in shape (components, types, `main`), with our
    image and a mocker command."""
    mocker = ["python3", "-m", "dynamo.mocker"]
    model = ("--model-path", "/models/tiny")
    return small_beta_graph(
        name,
        [
            beta_component("Frontend", "frontend"),
            beta_component("decode", "decode", mocker, *model),
            beta_component("prefill", "prefill", mocker, *model),
        ],
    )


def _by_name(graph: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {component["name"]: component for component in graph["spec"]["components"]}


@kwok_only.PODS_READY
async def test_a_graph_written_at_v1beta1_is_stored_at_v1alpha1_and_converged(
    world: World,
) -> None:
    written = await world.create(GRAPH_BETA, beta_graph("beta"))
    assert [c["name"] for c in written["spec"]["components"]] == ["Frontend", "decode", "prefill"]
    stored = await world.graph("beta")
    services = stored["spec"]["services"]
    assert services["decode"]["componentType"] == "worker"
    assert services["decode"]["subComponentType"] == "decode"
    assert services["prefill"]["extraPodSpec"]["mainContainer"]["image"] == IMAGE
    assert stored["metadata"].get("annotations", {}) == {}, "nothing needed preserving"
    await world.converged("beta")
    assert {"beta-frontend", "beta-decode", "beta-prefill"} <= await world.names(DEPLOYMENT)
    read = await world.get(GRAPH_BETA, "beta")
    assert read is not None
    assert read["spec"] == written["spec"], "a round trip through storage changes nothing"
    status = read["status"]
    assert status["state"] == "successful"
    assert set(status["components"]) == {"Frontend", "decode", "prefill"}
    assert status["components"]["decode"]["componentKind"] == "Deployment"


async def test_a_graph_written_at_v1alpha1_reads_at_v1beta1_and_back(world: World) -> None:
    graph = small_graph("alpha")
    graph["spec"]["services"]["VllmWorker"]["dynamoNamespace"] = "shared-discovery"
    graph["spec"]["services"]["VllmWorker"]["annotations"] = {"team": "a"}
    await world.create(GRAPH, graph)
    beta = await world.get(GRAPH_BETA, "alpha")
    assert beta is not None
    worker = _by_name(beta)["VllmWorker"]
    assert worker["type"] == "worker"
    assert [c["name"] for c in worker["podTemplate"]["spec"]["containers"]] == ["main"]
    assert beta["spec"]["env"] == [{"name": "HF_HOME", "value": "/models/hf"}]
    alpha = await world.graph("alpha")
    assert alpha["spec"] == {**graph["spec"]}, "what only v1alpha1 says survives a v1beta1 read"


async def test_patches_at_v1beta1_change_the_stored_graph_and_nothing_else(world: World) -> None:
    graph = small_graph("patched")
    graph["spec"]["services"]["VllmWorker"]["dynamoNamespace"] = "kept"
    await world.create(GRAPH, graph)
    rest = world.rest
    # The planner's fallback: a JSON patch guarded by the component's name.
    beta = await world.get(GRAPH_BETA, "patched")
    assert beta is not None
    index = [c["name"] for c in beta["spec"]["components"]].index("VllmWorker")
    await rest.json_patch(
        GRAPH_BETA,
        world.namespace,
        "patched",
        [
            {"op": "test", "path": f"/spec/components/{index}/name", "value": "VllmWorker"},
            {"op": "replace", "path": f"/spec/components/{index}/replicas", "value": 3},
        ],
        field_manager="planner",
    )
    # kubectl patch --type merge replaces the list: the whole component list, at v1beta1.
    components = copy.deepcopy(beta["spec"]["components"])
    for component in components:
        if component["name"] == "Frontend":
            component["replicas"] = 2
        if component["name"] == "VllmWorker":
            component["replicas"] = 3
    await rest.merge_patch(
        GRAPH_BETA,
        world.namespace,
        "patched",
        {"spec": {"components": components}},
        field_manager=USER,
    )
    # Server-side apply at v1beta1 of one field of one component (a list-map entry).
    await rest.apply(
        GRAPH_BETA,
        {
            "apiVersion": GRAPH_BETA.api_version,
            "kind": GRAPH_BETA.kind,
            "metadata": {"name": "patched", "namespace": world.namespace},
            "spec": {"components": [{"name": "VllmWorker", "replicas": 4}]},
        },
        field_manager="autoscaler",
    )
    stored = (await world.graph("patched"))["spec"]["services"]
    assert stored["Frontend"]["replicas"] == 2
    assert stored["VllmWorker"]["replicas"] == 4
    assert stored["VllmWorker"]["dynamoNamespace"] == "kept"
    assert (
        stored["VllmWorker"]["extraPodSpec"]
        == graph["spec"]["services"]["VllmWorker"]["extraPodSpec"]
    )


async def test_a_watch_at_v1beta1_sees_a_v1alpha1_write(world: World) -> None:
    created = await world.create(GRAPH, small_graph("watched"))
    version = created["metadata"]["resourceVersion"]
    seen: list[int] = []
    async with world.rest.watch(
        GRAPH_BETA,
        world.namespace,
        resource_version=version,
        timeout_seconds=30,
        field_selector="metadata.name=watched",
    ) as events:
        await world.patch(GRAPH, "watched", {"spec": {"services": {"VllmWorker": {"replicas": 5}}}})
        with anyio.fail_after(30):
            async for event in events:
                if event.type == "MODIFIED":
                    seen.append(_by_name(event.object)["VllmWorker"]["replicas"])
                    break
    assert seen == [5]


@pytest.fixture
def conversion_down(
    conversion_server: ConversionServer | None, kr8s_api: kr8s.Api
) -> Iterator[None]:
    if conversion_server is None:
        pytest.fail("needs the local control plane's conversion webhook")
    conversion_server.stop()
    try:
        yield
    finally:
        conversion_server.start(kr8s_api)


@pytest.mark.local_control_plane
async def test_while_the_conversion_webhook_is_away_the_storage_version_still_works(
    world: World, conversion_down: None
) -> None:
    await world.create(GRAPH, small_graph("during-outage"))
    with pytest.raises(ApiError) as refused:
        await world.rest.get(GRAPH_BETA, world.namespace, "during-outage")
    assert "conversion webhook" in str(refused.value)
    # The operator reads v1alpha1 only: it converges the graph all the same.
    await world.converged("during-outage")
    assert {"during-outage-frontend", "during-outage-vllmworker"} <= await world.names(DEPLOYMENT)


@pytest.mark.local_control_plane
async def test_a_reset_conversion_stanza_is_repaired(
    world: World, conversion_server: ConversionServer | None
) -> None:
    assert conversion_server is not None
    name = f"{GRAPH.plural}.nvidia.com"
    await world.rest.merge_patch(
        CUSTOM_RESOURCE_DEFINITION,
        None,
        name,
        {
            "spec": {
                "conversion": {
                    "webhook": {
                        "clientConfig": {
                            "url": None,
                            "caBundle": None,
                            "service": {
                                "namespace": "dynamo-system",
                                "name": "dynamo-operator-webhook-service",
                                "path": "/convert",
                            },
                        }
                    }
                }
            }
        },
        field_manager="helm",
    )

    async def repaired() -> bool:
        crd = await world.rest.get(CUSTOM_RESOURCE_DEFINITION, None, name)
        config = crd["spec"]["conversion"]["webhook"]["clientConfig"]
        return config.get("url") == conversion_server.url and bool(config.get("caBundle"))

    await eventually(f"{name}'s conversion webhook repaired", repaired, within=60)
