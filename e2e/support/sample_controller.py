"""A sample controller for the manager's integration tests and benchmark (not shipped).

For every Secret labelled `sample=mirror` it keeps a ConfigMap `<secret>-keys` listing the
Secret's keys (never its values), owned by the Secret so garbage collection removes it with the
Secret. It is written the way the Dynamo reconcilers are meant to be: level-based, reads from
the cache, builds the desired object with a pure function, writes only when the live object
differs, and never looks at the event that woke it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import anyio
from prometheus_client import REGISTRY

from manager.runtime.builder import ControllerBuilder
from manager.runtime.cache import CacheReader
from manager.runtime.client import Client, RestClient
from manager.runtime.controller import Controller, Request, Result
from manager.runtime.identity import Identity
from manager.runtime.kinds import CONFIG_MAP, SECRET
from manager.runtime.manager import Manager
from manager.runtime.predicate import new_predicate_funcs

LABEL = "sample"
LABEL_VALUE = "mirror"
SUFFIX = "-keys"
IDENTITY = Identity.for_product("sample-controller", domain="example.com", version="0")


def build_key_list(secret: dict[str, Any]) -> dict[str, Any]:
    """The ConfigMap that mirrors `secret`'s keys; a pure function of the Secret."""
    metadata = secret["metadata"]
    keys = sorted({*(secret.get("data") or {}), *(secret.get("stringData") or {})})
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": metadata["name"] + SUFFIX,
            "namespace": metadata["namespace"],
            "labels": {LABEL: "keys"},
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Secret",
                    "name": metadata["name"],
                    "uid": metadata["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "data": {"keys": "\n".join(keys)},
    }


class SecretKeysReconciler:
    def __init__(self, client: Client, reader: CacheReader) -> None:
        self.client = client
        self.reader = reader

    async def reconcile(self, request: Request) -> Result:
        secret = self.reader.get(SECRET, request.namespace, request.name)
        if secret is None or secret["metadata"].get("deletionTimestamp"):
            return Result()  # deleted: garbage collection removes the ConfigMap
        desired = build_key_list(secret)
        live = self.reader.get(CONFIG_MAP, request.namespace, desired["metadata"]["name"])
        await self.client.apply_if_changed(desired, live)
        return Result()


def is_sample_object(obj: dict[str, Any]) -> bool:
    return (obj.get("metadata") or {}).get("labels", {}).get(LABEL) in (LABEL_VALUE, "keys")


def add_sample_controller(
    manager: Manager, client: Client, *, max_concurrent_reconciles: int = 4
) -> Controller:
    if manager.cache is None:
        raise ValueError("the sample controller reads from the manager's cache")
    return (
        ControllerBuilder(manager)
        .named("secret-keys")
        .for_(SECRET)
        .owns(CONFIG_MAP)
        .with_event_filter(new_predicate_funcs(is_sample_object))
        .with_options(max_concurrent_reconciles=max_concurrent_reconciles)
        .complete(SecretKeysReconciler(client, manager.cache.reader))
    )


# Helpers shared by the integration tests and bench/sample_controller.py ------------------------

MUTATING_METHODS = ("POST", "PUT", "PATCH", "DELETE")


def mutating_requests() -> float:
    """Writes sent to the API server so far by this process (`rest_client_requests_total`)."""
    total = 0.0
    for family in REGISTRY.collect():
        if family.name != "rest_client_requests":
            continue
        for sample in family.samples:
            if sample.name.endswith("_total") and sample.labels["method"] in MUTATING_METHODS:
                total += sample.value
    return total


def sample_secret(namespace: str, name: str, keys: Iterable[str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace, "labels": {LABEL: LABEL_VALUE}},
        "stringData": {key: f"value-of-{key}" for key in keys},
    }


async def mirrored_keys(rest: RestClient, namespace: str) -> dict[str, str]:
    """Secret name -> the key list its ConfigMap holds, read from the API server."""
    items, _ = await rest.list_all(CONFIG_MAP, namespace, label_selector=f"{LABEL}=keys")
    return {
        item["metadata"]["name"].removesuffix(SUFFIX): (item.get("data") or {}).get("keys", "")
        for item in items
    }


async def wait_for_mirrors(rest: RestClient, namespace: str, expected: dict[str, str]) -> None:
    """Poll the API server until the ConfigMaps hold `expected`; callers bound it."""
    # The server's state has no event to wait on: polling it is the point.
    while await mirrored_keys(rest, namespace) != expected:  # noqa: ASYNC110
        await anyio.sleep(0.2)


async def wait_until_idle(controller: Controller) -> None:
    """Until no key is queued, in progress or waiting for a delay."""
    # The queue offers no "idle" notification (client-go's does not either); sample it.
    while len(controller.queue) or controller.queue.processing or controller.queue.waiting:  # noqa: ASYNC110
        await anyio.sleep(0.05)
