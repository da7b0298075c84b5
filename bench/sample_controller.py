"""Reconcile throughput of the sample controller (one ConfigMap per Secret) on 1,000 objects.

Against a real kube-apiserver (KUBECONFIG when set, else the local control plane from
e2e/localcluster), measures:

* initial: 1,000 Secrets exist before the manager starts; seconds from start until every
  ConfigMap is on the server, and reconciles per second over that time;
* burst: 1,000 more Secrets created while it runs; seconds until all are mirrored;
* no-op: every Secret touched in a way that changes nothing it mirrors; reconciles per second
  and the writes the controller made (must be 0);
* steady: writes during 10 s of quiet after convergence (must be 0).

The last line is `key=value` pairs for scripts.

    python -m bench.sample_controller [--objects 1000] [--workers 8]
"""

from __future__ import annotations

import argparse
import time
import uuid
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import anyio
import kr8s.asyncio
from prometheus_client import REGISTRY

from e2e.support.sample_controller import (
    IDENTITY,
    add_sample_controller,
    mutating_requests,
    sample_secret,
    wait_for_mirrors,
    wait_until_idle,
)
from manager.runtime.cache import Cache
from manager.runtime.client import Client, RestClient
from manager.runtime.controller import Controller
from manager.runtime.kinds import NAMESPACE, SECRET
from manager.runtime.logging import configure_logging
from manager.runtime.manager import Manager


def kubeconfig() -> AbstractContextManager[Path]:
    from e2e.localcluster import kubeconfig_or_local_cluster

    cluster: AbstractContextManager[Path] = kubeconfig_or_local_cluster(prefix="bench-controller-")
    return cluster


def successes(controller: Controller) -> float:
    labels = {"controller": controller.name, "result": "success"}
    return REGISTRY.get_sample_value("controller_runtime_reconcile_total", labels) or 0.0


async def create_secrets(rest: RestClient, namespace: str, indexes: range) -> None:
    pending = iter(indexes)

    async def worker() -> None:
        for index in pending:
            secret = sample_secret(namespace, f"s-{index:05d}", ["token", f"key-{index}"])
            await rest.create(SECRET, secret, field_manager="bench")

    async with anyio.create_task_group() as tg:
        for _ in range(16):
            tg.start_soon(worker)


async def touch_secrets(rest: RestClient, namespace: str, indexes: range) -> None:
    """Add an annotation: wakes the reconciler without changing what it mirrors."""
    pending = iter(indexes)
    patch = {"metadata": {"annotations": {"bench/touched": "yes"}}}

    async def worker() -> None:
        for index in pending:
            await rest.merge_patch(
                SECRET, namespace, f"s-{index:05d}", patch, field_manager="bench"
            )

    async with anyio.create_task_group() as tg:
        for _ in range(16):
            tg.start_soon(worker)


def mirrors(indexes: range) -> dict[str, str]:
    return {f"s-{index:05d}": "\n".join(sorted(["token", f"key-{index}"])) for index in indexes}


async def settle(controller: Controller) -> None:
    await anyio.sleep(1.0)
    await wait_until_idle(controller)


async def run(api: Any, objects: int, workers: int) -> dict[str, float]:
    rest = RestClient.for_api(api)
    namespace = f"bench-sample-{uuid.uuid4().hex[:6]}"
    await rest.create(NAMESPACE, {"metadata": {"name": namespace}}, field_manager="bench")
    await create_secrets(rest, namespace, range(objects))

    cache = Cache(api, namespace=namespace)
    manager = Manager(cache=cache, health_port=None, metrics_port=None)
    controller = add_sample_controller(
        manager, Client(api, IDENTITY), max_concurrent_reconciles=workers
    )
    results: dict[str, float] = {"objects": objects, "workers": workers}
    async with anyio.create_task_group() as tg:
        started, reconciled = time.perf_counter(), successes(controller)
        await tg.start(manager.run)
        await wait_for_mirrors(rest, namespace, mirrors(range(objects)))
        results["initial_converge_s"] = time.perf_counter() - started
        results["initial_reconciles_per_s"] = (successes(controller) - reconciled) / results[
            "initial_converge_s"
        ]
        await settle(controller)

        started = time.perf_counter()
        await create_secrets(rest, namespace, range(objects, 2 * objects))
        await wait_for_mirrors(rest, namespace, mirrors(range(2 * objects)))
        results["burst_converge_s"] = time.perf_counter() - started
        await settle(controller)

        writes, reconciled, started = (
            mutating_requests(),
            successes(controller),
            time.perf_counter(),
        )
        await touch_secrets(rest, namespace, range(2 * objects))
        with anyio.fail_after(600):
            # Counting reconciles as they complete; the metric has no change notification.
            while successes(controller) - reconciled < 2 * objects:  # noqa: ASYNC110
                await anyio.sleep(0.05)
        results["noop_reconciles_per_s"] = 2 * objects / (time.perf_counter() - started)
        await settle(controller)
        results["noop_writes"] = mutating_requests() - writes - 2 * objects

        writes = mutating_requests()
        await anyio.sleep(10)
        results["steady_writes"] = mutating_requests() - writes
        manager.request_shutdown()
    await rest.delete(NAMESPACE, None, namespace)
    return results


async def main_async(objects: int, workers: int) -> dict[str, float]:
    with kubeconfig() as path:
        api = await kr8s.asyncio.api(kubeconfig=str(path))
        try:
            return await run(api, objects, workers)
        finally:
            await RestClient.for_api(api).transport.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    configure_logging("warning")
    results = anyio.run(main_async, args.objects, args.workers)
    for key, value in results.items():
        print(f"{key:26} {value:10.2f}")
    print(" ".join(f"{key}={value:.2f}".replace(".00", "") for key, value in results.items()))


if __name__ == "__main__":
    main()
