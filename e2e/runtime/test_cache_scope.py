"""Cache scopes against a real kube-apiserver: a namespace-restricted cache sees one namespace,
a cluster cache sees all; one informer per kind, started on demand."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from manager.runtime.cache import OWNER_UID_INDEX, Cache
from manager.runtime.client import RestClient
from manager.runtime.kinds import CONFIG_MAP, NAMESPACE, SECRET

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
async def other_namespace(api: Any) -> AsyncIterator[str]:
    rest = RestClient.for_api(api)
    name = f"cache-scope-other-{uuid.uuid4().hex[:6]}"
    await rest.create(NAMESPACE, {"metadata": {"name": name}}, field_manager="test")
    yield name
    await rest.delete(NAMESPACE, None, name)


def labelled(namespace: str, name: str, **extra: Any) -> dict[str, Any]:
    metadata = {"name": name, "namespace": namespace, "labels": {"scope-test": "yes"}, **extra}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}


async def test_a_restricted_cache_sees_only_its_namespace_and_a_cluster_cache_sees_all(
    api: Any, namespace: str, other_namespace: str
) -> None:
    rest = RestClient.for_api(api)
    await rest.create(CONFIG_MAP, labelled(namespace, "mine"), field_manager="test")
    await rest.create(CONFIG_MAP, labelled(other_namespace, "theirs"), field_manager="test")
    restricted, cluster = Cache(api, namespace=namespace), Cache(api)

    async with anyio.create_task_group() as tg:
        await tg.start(restricted.run)
        await tg.start(cluster.run)
        # Created after the caches started: they start at once, in the caches' task groups.
        in_one = restricted.register(CONFIG_MAP, label_selector="scope-test=yes")
        in_all = cluster.register(CONFIG_MAP, label_selector="scope-test=yes")
        with anyio.fail_after(30):
            await restricted.wait_for_sync()
            await cluster.wait_for_sync()
        tg.cancel_scope.cancel()

    assert [o["metadata"]["name"] for o in in_one.store.list()] == ["mine"]
    assert sorted(o["metadata"]["name"] for o in in_all.store.list()) == ["mine", "theirs"]
    assert [o["metadata"]["name"] for o in in_all.store.list(other_namespace)] == ["theirs"]
    assert restricted.get_informer(CONFIG_MAP) is in_one
    assert restricted.get_informer(SECRET) is not in_one


async def test_children_are_found_through_the_owner_index(api: Any, namespace: str) -> None:
    rest = RestClient.for_api(api)
    owner = await rest.create(CONFIG_MAP, labelled(namespace, "owner"), field_manager="test")
    reference = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "owner",
        "uid": owner["metadata"]["uid"],
        "controller": True,
    }
    for name in ("child-a", "child-b"):
        child = labelled(namespace, name, ownerReferences=[reference])
        await rest.create(CONFIG_MAP, child, field_manager="test")
    cache = Cache(api, namespace=namespace)
    informer = cache.get_informer(CONFIG_MAP)

    async with anyio.create_task_group() as tg:
        await tg.start(cache.run)
        with anyio.fail_after(30):
            await cache.wait_for_sync()
        tg.cancel_scope.cancel()

    children = informer.store.by_index(OWNER_UID_INDEX, owner["metadata"]["uid"])
    assert sorted(o["metadata"]["name"] for o in children) == ["child-a", "child-b"]
