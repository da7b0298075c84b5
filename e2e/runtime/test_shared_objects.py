"""An object several owners share, against a real kube-apiserver: owners added side by side from
a cache that lags all end up among its owner references, each with one write, and a shared
object deleted by hand is made again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from e2e.runtime.test_client_apply import IDENTITY, CountingTransport
from e2e.support.polling import eventually
from manager.runtime.cache import Cache
from manager.runtime.client import Client, RestClient
from manager.runtime.kinds import CONFIG_MAP, SERVICE_ACCOUNT
from manager.runtime.shared_objects import SharedObjects

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

OWNERS = 12
CALLS_PER_OWNER = 3
"""A graph's components each make sure the account is theirs, side by side."""


@pytest.fixture
async def cache(api: Any, namespace: str) -> AsyncIterator[Cache]:
    cache = Cache(api, namespace=namespace)
    async with anyio.create_task_group() as tg:
        await tg.start(cache.run)
        await cache.get_informer(SERVICE_ACCOUNT).wait_for_sync()
        yield cache
        tg.cancel_scope.cancel()


def account(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": "shared", "namespace": namespace, "labels": {"app": "shared"}},
    }


async def owners(rest: RestClient, namespace: str) -> list[dict[str, Any]]:
    """Real objects: the garbage collector would delete an account whose owners do not exist."""
    made = []
    for index in range(OWNERS):
        config_map = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"owner-{index}", "namespace": namespace},
        }
        made.append(await rest.create(CONFIG_MAP, config_map, field_manager="e2e"))
    return made


def account_writes(counted: CountingTransport) -> list[tuple[str, str]]:
    return [
        (method, path)
        for method, path in counted.requests
        if method != "GET" and "/serviceaccounts" in path
    ]


async def test_owners_added_side_by_side_are_all_kept_with_one_write_each(
    counted: CountingTransport, cache: Cache, namespace: str
) -> None:
    client = Client(RestClient(counted), IDENTITY)
    shared = SharedObjects(client, cache.reader)
    made = await owners(client.rest, namespace)

    async with anyio.create_task_group() as group:
        for owner in made * CALLS_PER_OWNER:
            reference = {"apiVersion": "v1", "kind": "ConfigMap", **owner["metadata"]}
            group.start_soon(shared.apply, account(namespace), reference)

    live = await client.rest.get(SERVICE_ACCOUNT, namespace, "shared")
    kept = sorted(ref["name"] for ref in live["metadata"]["ownerReferences"])
    assert kept == sorted(owner["metadata"]["name"] for owner in made)
    assert len(account_writes(counted)) == OWNERS, "one create, then one write per new owner"


async def test_a_shared_object_deleted_by_hand_is_made_again(
    counted: CountingTransport, cache: Cache, namespace: str
) -> None:
    client = Client(RestClient(counted), IDENTITY)
    shared = SharedObjects(client, cache.reader)
    owner = (await owners(client.rest, namespace))[0]
    reference = {"apiVersion": "v1", "kind": "ConfigMap", **owner["metadata"]}
    _, created = await shared.apply(account(namespace), reference)
    assert created

    await client.delete(SERVICE_ACCOUNT, namespace, "shared")

    async def gone_from_cache() -> bool:  # a reconciler runs on the deletion the cache has seen
        return cache.reader.get(SERVICE_ACCOUNT, namespace, "shared") is None

    await eventually("the cache to see the deletion", gone_from_cache, within=30, interval=0.05)
    remade, created = await shared.apply(account(namespace), reference)

    assert created, "the last answer the caller remembers is not taken for the live object"
    assert [ref["uid"] for ref in remade["metadata"]["ownerReferences"]] == [
        owner["metadata"]["uid"]
    ]
    assert (await client.rest.get(SERVICE_ACCOUNT, namespace, "shared"))["metadata"]["uid"] == (
        remade["metadata"]["uid"]
    )


async def test_objects_of_one_owner_applied_side_by_side_are_written_once_with_exactly_it(
    counted: CountingTransport, cache: Cache, namespace: str
) -> None:
    """A graph's Role and RoleBinding, applied by each of its components while the cache lags:
    one write each; a recreated owner's reference replaces the old one's, none is kept."""
    client = Client(RestClient(counted), IDENTITY)
    shared = SharedObjects(client, cache.reader)
    old, new = (await owners(client.rest, namespace))[:2]

    def owned(name: str, owner: dict[str, Any]) -> dict[str, Any]:
        reference = {"apiVersion": "v1", "kind": "ConfigMap", **owner["metadata"]}
        obj = account(namespace)
        refs = [{field: reference[field] for field in ("apiVersion", "kind", "name", "uid")}]
        return {**obj, "metadata": {**obj["metadata"], "name": name, "ownerReferences": refs}}

    created: list[list[str]] = []

    async def apply_all(owner: dict[str, Any]) -> None:
        created.append(await shared.apply_all([owned("a", owner), owned("b", owner)]))

    async with anyio.create_task_group() as group:
        for _ in range(CALLS_PER_OWNER * 4):
            group.start_soon(apply_all, old)
    assert sorted(name for names in created for name in names) == [
        "ServiceAccount/a",
        "ServiceAccount/b",
    ], "each created once"
    assert len(account_writes(counted)) == 2, "each object written once"

    await shared.apply_all([owned("a", new), owned("b", new)])
    for name in ("a", "b"):
        live = await client.rest.get(SERVICE_ACCOUNT, namespace, name)
        assert [ref["uid"] for ref in live["metadata"]["ownerReferences"]] == [
            new["metadata"]["uid"]
        ], "exactly the new owner: the old one's reference would keep a dangling owner"
    # Each changed once: the fields of its POST adopted by the apply, then the apply.
    assert len(account_writes(counted)) == 2 + 2 * 2
