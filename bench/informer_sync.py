"""Informer initial sync: 10,000 ConfigMaps from a real kube-apiserver, against bare lists.

Creates N ConfigMaps (a small config file, two labels, written with a field manager so the API
server returns managedFields, as for any real object) in a fresh namespace, then times, best of
`--rounds`:
- `sync_seconds`: an `Informer` from creation to `wait_for_sync()` (paginated list, decode, strip,
  index, store);
- `sync_kr8s_transport_seconds`: the same informer over kr8s's httpx client instead of our
  default aiohttp transport (why aiohttp is the default);
- `bare_kr8s_seconds`: kr8s's own paginated list (`api.get(..., raw=True)`, pages of 100);
- `bare_aiohttp_seconds`: plain aiohttp with kr8s's credentials, pages of 500, orjson decode.
Memory: the bytes the synced informer keeps alive (tracemalloc, after gc) beside the size of the
objects' JSON as the server sends it (`json_bytes`, with managedFields) and without managedFields.
`sync_ratio` is against the faster bare list; targets: sync_ratio <= 1.5, memory_ratio <= 2.5.

    python -m bench.informer_sync [--objects 10000] [--rounds 3]

Uses KUBECONFIG when set, else starts the local control plane from e2e/localcluster (binaries
built and cached on first use). The last line is `key=value` pairs.
"""

from __future__ import annotations

import argparse
import gc
import resource
import time
import tracemalloc
import uuid
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import kr8s.asyncio
import orjson

from bench.kr8s_transport import Kr8sTransport
from manager.runtime.cache import Informer
from manager.runtime.client import RestClient
from manager.runtime.kinds import CONFIG_MAP, NAMESPACE

CONFIG_FILE = "\n".join(f"setting_{i}: value-{i}-{'x' * 12}" for i in range(8))


def kubeconfig() -> AbstractContextManager[Path]:
    from e2e.localcluster import kubeconfig_or_local_cluster

    cluster: AbstractContextManager[Path] = kubeconfig_or_local_cluster(prefix="bench-informer-")
    return cluster


def config_map(namespace: str, index: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"config-{index:05d}",
            "namespace": namespace,
            "labels": {"app.kubernetes.io/name": "bench", "bench/group": str(index % 10)},
        },
        "data": {"config.yaml": CONFIG_FILE, "mode": "serve"},
    }


async def create_objects(rest: RestClient, namespace: str, count: int) -> None:
    await rest.create(NAMESPACE, {"metadata": {"name": namespace}}, field_manager="bench")
    indexes = iter(range(count))

    async def worker() -> None:
        for index in indexes:
            await rest.create(CONFIG_MAP, config_map(namespace, index), field_manager="bench")

    async with anyio.create_task_group() as tg:
        for _ in range(16):
            tg.start_soon(worker)


async def informer_sync(api: Any, namespace: str) -> tuple[float, Informer]:
    started = time.perf_counter()
    informer = Informer(api, CONFIG_MAP, namespace)
    async with anyio.create_task_group() as tg:
        tg.start_soon(informer.run)
        await informer.wait_for_sync()
        elapsed = time.perf_counter() - started
        tg.cancel_scope.cancel()
    return elapsed, informer


async def bare_kr8s(api: Any, namespace: str) -> tuple[float, int]:
    started = time.perf_counter()
    count = 0
    async for _ in api.get("configmaps", namespace=namespace, raw=True):
        count += 1
    return time.perf_counter() - started, count


async def bare_aiohttp(api: Any, namespace: str) -> tuple[float, list[dict[str, Any]]]:
    auth = api.auth
    headers = {"Authorization": f"Bearer {auth.token}"} if auth.token else {}
    connector = aiohttp.TCPConnector(ssl=await auth.ssl_context())
    url = f"{auth.server}/api/v1/namespaces/{namespace}/configmaps"
    items: list[dict[str, Any]] = []
    async with aiohttp.ClientSession(headers=headers, connector=connector) as session:
        started = time.perf_counter()
        params = {"limit": "500"}
        while True:
            async with session.get(url, params=params) as response:
                body = orjson.loads(await response.read())
            items.extend(body["items"])
            token = body["metadata"].get("continue")
            if not token:
                break
            params["continue"] = token
        return time.perf_counter() - started, items


async def retained_bytes(api: Any, namespace: str) -> int:
    """Bytes kept alive by a synced informer: traced memory with it minus without it."""
    gc.collect()
    tracemalloc.start()
    baseline = tracemalloc.get_traced_memory()[0]
    _, informer = await informer_sync(api, namespace)
    gc.collect()
    with_cache = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(informer.store) > 0
    return with_cache - baseline


async def main(objects: int, rounds: int) -> None:
    with kubeconfig() as path:
        api = await kr8s.asyncio.api(kubeconfig=str(path))
        rest = RestClient.for_api(api)
        namespace = f"bench-informer-{uuid.uuid4().hex[:6]}"
        began = time.perf_counter()
        await create_objects(rest, namespace, objects)
        print(f"created {objects} config maps in {time.perf_counter() - began:.1f}s", flush=True)
        try:
            await bare_kr8s(api, namespace)  # warm kr8s's discovery cache and connections
            sync, sync_httpx, kr8s_list, aio_list = [], [], [], []
            over_httpx = RestClient(Kr8sTransport(api))
            for _ in range(rounds):
                sync.append((await informer_sync(api, namespace))[0])
                sync_httpx.append((await informer_sync(over_httpx, namespace))[0])
                kr8s_seconds, count = await bare_kr8s(api, namespace)
                kr8s_list.append(kr8s_seconds)
                aio_seconds, items = await bare_aiohttp(api, namespace)
                aio_list.append(aio_seconds)
                assert count == len(items) >= objects
                print(
                    f"round: sync={sync[-1]:.3f}s sync_httpx={sync_httpx[-1]:.3f}s "
                    f"kr8s={kr8s_seconds:.3f}s "
                    f"aiohttp={aio_seconds:.3f}s",
                    flush=True,
                )
            json_bytes = sum(len(orjson.dumps(item)) for item in items)
            for item in items:
                item["metadata"].pop("managedFields", None)
            stripped_bytes = sum(len(orjson.dumps(item)) for item in items)
            del items
            rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            cache_bytes = await retained_bytes(api, namespace)
            rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        finally:
            await rest.delete(NAMESPACE, None, namespace)
            await rest.transport.aclose()
    best_sync, best_kr8s, best_aio = min(sync), min(kr8s_list), min(aio_list)
    figures = {
        "objects": objects,
        "sync_seconds": round(best_sync, 3),
        "sync_kr8s_transport_seconds": round(min(sync_httpx), 3),
        "bare_kr8s_seconds": round(best_kr8s, 3),
        "bare_aiohttp_seconds": round(best_aio, 3),
        "sync_ratio": round(best_sync / min(best_kr8s, best_aio), 2),
        "sync_ratio_vs_kr8s": round(best_sync / best_kr8s, 2),
        "json_bytes": json_bytes,
        "json_bytes_without_managed_fields": stripped_bytes,
        "cache_bytes": cache_bytes,
        "cache_bytes_per_object": cache_bytes // objects,
        "memory_ratio": round(cache_bytes / json_bytes, 2),
        "memory_ratio_vs_stripped_json": round(cache_bytes / stripped_bytes, 2),
        "max_rss_growth_mib": round((rss_after - rss_before) / 1024, 1),
    }
    print(" ".join(f"{key}={value}" for key, value in figures.items()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    anyio.run(main, arguments.objects, arguments.rounds)
