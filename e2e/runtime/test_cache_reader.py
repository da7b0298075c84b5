"""Cache reads against a real kube-apiserver: children by owner UID, a field-selected Secret
informer that caches only image pull secrets, custom indexes, and a fast failure for a kind
nobody caches."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import pytest

from manager.runtime.cache import Cache, CacheReader, KindNotCachedError
from manager.runtime.client import RestClient
from manager.runtime.kinds import CONFIG_MAP, SECRET, ResourceKind

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson"
PULL_SECRETS_ONLY = f"type={DOCKER_CONFIG_JSON}"


StartCache = Callable[[Cache], Awaitable[CacheReader]]


@pytest.fixture
async def start_cache() -> AsyncIterator[StartCache]:
    """Runs caches until the test ends; each start returns the reader once the cache synced."""
    async with anyio.create_task_group() as tg:

        async def start(cache: Cache) -> CacheReader:
            await tg.start(cache.run)
            with anyio.fail_after(30):
                await cache.wait_for_sync()
            return cache.reader

        yield start
        tg.cancel_scope.cancel()


def config_map(namespace: str, name: str, **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, **metadata},
    }


def secret(namespace: str, name: str, secret_type: str) -> dict[str, Any]:
    data = {".dockerconfigjson": "e30="} if secret_type == DOCKER_CONFIG_JSON else {"k": "dg=="}
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace},
        "type": secret_type,
        "data": data,
    }


def names(objects: list[dict[str, Any]]) -> list[str]:
    return [o["metadata"]["name"] for o in objects]


async def eventually_cached(cache: Cache, kind: ResourceKind, namespace: str, name: str) -> None:
    with anyio.fail_after(30):
        while cache.reader.get(kind, namespace, name) is None:  # noqa: ASYNC110
            await anyio.sleep(0.05)


async def test_children_are_read_by_owner_uid_label_and_custom_index(
    api: Any, namespace: str, start_cache: StartCache
) -> None:
    rest = RestClient.for_api(api)
    owner = await rest.create(CONFIG_MAP, config_map(namespace, "owner"), field_manager="test")
    other = await rest.create(CONFIG_MAP, config_map(namespace, "other"), field_manager="test")

    def owned_by(created: dict[str, Any]) -> list[dict[str, Any]]:
        meta = created["metadata"]
        return [{"apiVersion": "v1", "kind": "ConfigMap", "name": meta["name"], "uid": meta["uid"]}]

    children = [
        ("child-b", owner, {"tier": "front"}, "h1"),
        ("child-a", owner, {"tier": "back"}, "h2"),
        ("stranger", other, {"tier": "front"}, "h1"),
    ]
    for name, parent, labels, model_hash in children:
        child = config_map(namespace, name, labels=labels, ownerReferences=owned_by(parent))
        child["data"] = {"baseModelHash": model_hash}
        await rest.create(CONFIG_MAP, child, field_manager="test")
    cache = Cache(api, namespace=namespace)
    cache.register(
        CONFIG_MAP, indexers={"hash": lambda o: [(o.get("data") or {}).get("baseModelHash", "")]}
    )
    reader = await start_cache(cache)
    uid = owner["metadata"]["uid"]

    assert names(reader.list(CONFIG_MAP, namespace, owner_uid=uid)) == ["child-a", "child-b"]
    assert names(reader.list(CONFIG_MAP, namespace, owner_uid=uid, labels="tier=front")) == [
        "child-b"
    ]
    assert names(reader.by_index(CONFIG_MAP, "hash", "h1")) == ["child-b", "stranger"]

    late = config_map(namespace, "child-c", ownerReferences=owned_by(owner))
    await rest.create(CONFIG_MAP, late, field_manager="test")  # arrives through the watch
    await eventually_cached(cache, CONFIG_MAP, namespace, "child-c")
    assert names(reader.list(CONFIG_MAP, namespace, owner_uid=uid)) == [
        "child-a",
        "child-b",
        "child-c",
    ]


async def test_a_field_selected_secret_informer_holds_only_image_pull_secrets(
    api: Any, namespace: str, start_cache: StartCache
) -> None:
    rest = RestClient.for_api(api)
    for name, secret_type in [("pull", DOCKER_CONFIG_JSON), ("password", "Opaque")]:
        await rest.create(SECRET, secret(namespace, name, secret_type), field_manager="test")
    cache = Cache(api, namespace=namespace)
    cache.register(SECRET, field_selector=PULL_SECRETS_ONLY)
    cache.get_informer(SECRET)  # a controller's watch of Secrets shares the filtered informer
    reader = await start_cache(cache)

    for name, secret_type in [("late-password", "Opaque"), ("late-pull", DOCKER_CONFIG_JSON)]:
        await rest.create(SECRET, secret(namespace, name, secret_type), field_manager="test")
    await eventually_cached(cache, SECRET, namespace, "late-pull")

    assert names(reader.list(SECRET, namespace)) == ["late-pull", "pull"]
    assert reader.get(SECRET, namespace, "password") is None
    assert reader.get(SECRET, namespace, "late-password") is None
    assert {s["type"] for s in cache.get_informer(SECRET).store} == {DOCKER_CONFIG_JSON}
    assert len(cache.informers) == 1


async def test_reading_a_kind_nobody_watches_fails_at_once(
    api: Any, namespace: str, start_cache: StartCache
) -> None:
    cache = Cache(api, namespace=namespace)
    cache.get_informer(CONFIG_MAP)
    reader = await start_cache(cache)

    with pytest.raises(KindNotCachedError, match="Secret"):  # synchronous: it cannot wait
        reader.get(SECRET, namespace, "anything")
    with pytest.raises(KindNotCachedError, match="sees namespace"):
        reader.list(CONFIG_MAP, "kube-system")
    assert cache.find_informer(SECRET) is None, "a failed read starts no informer"
