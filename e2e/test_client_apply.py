"""The client against a real kube-apiserver: cached reads, server-side apply that writes only when
something changed, and the error hierarchy for the statuses the server really sends."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from prometheus_client import REGISTRY

from manager.cache import Cache
from manager.client import AlreadyExists, Client, Conflict, Invalid, NotFound
from manager.kinds import CONFIG_MAP, DEPLOYMENT, ResourceKind

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
async def client(api: Any, namespace: str) -> AsyncIterator[Client]:
    cache = Cache(api, namespace=namespace)
    async with anyio.create_task_group() as tg:
        await tg.start(cache.run)
        yield Client(api, cache)
        tg.cancel_scope.cancel()


def writes() -> float:
    """Mutating requests sent so far (all hosts), from the client's own metric."""
    total = 0.0
    for metric in REGISTRY.collect():
        if metric.name == "rest_client_requests":
            for sample in metric.samples:
                if sample.name.endswith("_total") and sample.labels["method"] != "GET":
                    total += sample.value
    return total


def deployment(namespace: str, replicas: int = 2, cpu: str = "500m") -> dict[str, Any]:
    labels = {"app": "web"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": namespace, "labels": labels},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": "registry.invalid/web:1",
                            "ports": [{"name": "http", "containerPort": 8000}],
                            "resources": {"requests": {"cpu": cpu, "memory": "0.5Gi"}},
                        }
                    ]
                },
            },
        },
    }


async def cached(client: Client, kind: ResourceKind, namespace: str, name: str) -> dict[str, Any]:
    """The object as the cache holds it, once the watch has delivered our latest write (or a
    later one: the deployment controller keeps writing status). Comparing resourceVersions as
    numbers is fine on a test cluster, where they are etcd revisions."""
    live = await client.rest.get(kind, namespace, name)
    with anyio.fail_after(30):
        while True:
            try:
                obj = await client.get(kind, namespace, name)
                if int(obj["metadata"]["resourceVersion"]) >= int(
                    live["metadata"]["resourceVersion"]
                ):
                    return obj
            except NotFound:
                pass
            await anyio.sleep(0.1)


async def test_apply_if_changed_writes_once_then_nothing_until_the_intent_changes(
    client: Client, namespace: str
) -> None:
    kind = DEPLOYMENT
    desired = deployment(namespace)

    assert await client.apply_if_changed(desired, None) is True
    before = writes()
    for _ in range(3):
        live = await cached(client, kind, namespace, "web")
        assert await client.apply_if_changed(copy.deepcopy(desired), live) is False
    assert writes() == before  # server defaults and quantity spellings do not cause writes

    live = await cached(client, kind, namespace, "web")
    assert await client.apply_if_changed(deployment(namespace, replicas=3), live) is True
    assert writes() == before + 1
    assert (await cached(client, kind, namespace, "web"))["spec"]["replicas"] == 3


async def test_apply_if_changed_removes_a_field_the_controller_stopped_setting(
    client: Client, namespace: str
) -> None:
    kind = DEPLOYMENT
    with_limit = deployment(namespace)
    container = with_limit["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["limits"] = {"nvidia.com/gpu": "1"}
    with_limit["metadata"]["labels"] = {"app": "web", "tier": "front"}
    assert await client.apply_if_changed(with_limit, None) is True

    live = await cached(client, kind, namespace, "web")
    assert await client.apply_if_changed(deployment(namespace), live) is True

    live = await cached(client, kind, namespace, "web")
    resources = live["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert "limits" not in resources
    assert "tier" not in live["metadata"]["labels"]
    assert await client.apply_if_changed(deployment(namespace), live) is False


async def test_apply_keeps_fields_owned_by_other_managers(client: Client, namespace: str) -> None:
    await client.apply(
        {**config_map(namespace, "shared"), "data": {"ours": "1"}}, field_manager="first"
    )
    await client.apply(
        {**config_map(namespace, "shared"), "data": {"theirs": "2"}}, field_manager="second"
    )

    live = await cached(client, CONFIG_MAP, namespace, "shared")
    assert live["data"] == {"ours": "1", "theirs": "2"}


def config_map(namespace: str, name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
    }


async def test_the_server_statuses_map_to_the_error_hierarchy(
    client: Client, namespace: str
) -> None:
    created = await client.create({**config_map(namespace, "cm"), "data": {"a": "1"}})

    with pytest.raises(AlreadyExists):
        await client.create(config_map(namespace, "cm"))
    with pytest.raises(NotFound):
        await client.rest.get(CONFIG_MAP, namespace, "missing")
    stale = {**created, "data": {"a": "2"}}
    await client.rest.replace(CONFIG_MAP, {**created, "data": {"a": "3"}}, field_manager="t")
    with pytest.raises(Conflict):
        await client.rest.replace(CONFIG_MAP, stale, field_manager="t")
    with pytest.raises(Invalid) as invalid:
        await client.create(config_map(namespace, "Not_A_Valid_Name"))
    assert "metadata.name" in str(invalid.value)


async def test_cached_reads_list_by_label_and_deletes_are_idempotent(
    client: Client, namespace: str
) -> None:
    for name, tier in [("a", "front"), ("b", "back"), ("c", "front")]:
        body = config_map(namespace, name)
        body["metadata"]["labels"] = {"tier": tier}
        await client.create(body)
    await cached(client, CONFIG_MAP, namespace, "c")

    front = await client.list(CONFIG_MAP, namespace, label_selector="tier=front")
    assert sorted(o["metadata"]["name"] for o in front) == ["a", "c"]
    front[0]["data"] = {"mutated": "by the reader"}  # reads are copies: the cache is untouched
    assert "data" not in (await client.get(CONFIG_MAP, namespace, front[0]["metadata"]["name"]))

    assert await client.delete(CONFIG_MAP, namespace, "a") is True
    assert await client.delete(CONFIG_MAP, namespace, "a") is False
