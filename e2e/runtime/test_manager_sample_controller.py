"""The manager end to end: a sample controller (one ConfigMap per Secret) against a real
kube-apiserver converges, repairs drift, writes nothing at steady state, and survives a burst
of 1,000 Secrets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from prometheus_client import REGISTRY

from e2e.support.sample_controller import (
    IDENTITY,
    SUFFIX,
    add_sample_controller,
    mutating_requests,
    sample_secret,
    wait_for_mirrors,
    wait_until_idle,
)
from manager.runtime.cache import Cache
from manager.runtime.client import Client, RestClient
from manager.runtime.controller import Controller
from manager.runtime.kinds import CONFIG_MAP, SECRET
from manager.runtime.manager import Manager

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

CONVERGE_SECONDS = 120
BURST = 1000


@pytest.fixture
async def running_controller(api: Any, namespace: str) -> AsyncIterator[Controller]:
    """The sample controller in a manager watching only the test's namespace."""
    cache = Cache(api, namespace=namespace)
    manager = Manager(cache=cache, health_port=None, metrics_port=None)
    controller = add_sample_controller(manager, Client(api, IDENTITY))
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(CONVERGE_SECONDS):
            await tg.start(manager.run)
        yield controller
        manager.request_shutdown()


def reconciles(controller: Controller, result: str) -> float:
    labels = {"controller": controller.name, "result": result}
    return REGISTRY.get_sample_value("controller_runtime_reconcile_total", labels) or 0.0


async def settle(controller: Controller) -> None:
    """Let the echo of our own writes come back through the watch and be reconciled."""
    with anyio.fail_after(CONVERGE_SECONDS):
        await anyio.sleep(1.0)
        await wait_until_idle(controller)


async def test_converges_repairs_drift_and_writes_nothing_at_steady_state(
    api: Any, namespace: str, running_controller: Controller
) -> None:
    rest = RestClient.for_api(api)
    errors = reconciles(running_controller, "error")
    for index in range(5):
        await rest.create(
            SECRET, sample_secret(namespace, f"s{index}", ["a", f"k{index}"]), field_manager="test"
        )
    unlabelled = sample_secret(namespace, "ignored", ["x"])
    unlabelled["metadata"]["labels"] = {}
    await rest.create(SECRET, unlabelled, field_manager="test")
    expected = {f"s{index}": f"a\nk{index}" for index in range(5)}

    with anyio.fail_after(CONVERGE_SECONDS):
        await wait_for_mirrors(rest, namespace, expected)
    await settle(running_controller)

    # Steady state: nothing changes, nothing is written, even when every Secret is touched in a
    # way that does not change the desired ConfigMap (a new annotation wakes the reconciler).
    writes, successes = mutating_requests(), reconciles(running_controller, "success")
    for index in range(5):
        await rest.merge_patch(
            SECRET,
            namespace,
            f"s{index}",
            {"metadata": {"annotations": {"touched": "yes"}}},
            field_manager="test",
        )
    await settle(running_controller)
    assert mutating_requests() - writes == 5, "only the test's 5 patches: no controller write"
    assert reconciles(running_controller, "success") >= successes + 5

    # A change to a Secret's keys reaches its ConfigMap.
    await rest.merge_patch(
        SECRET, namespace, "s0", {"stringData": {"b": "new"}}, field_manager="test"
    )
    expected["s0"] = "a\nb\nk0"
    with anyio.fail_after(CONVERGE_SECONDS):
        await wait_for_mirrors(rest, namespace, expected)

    # Drift: a hand edit of an owned ConfigMap is put back.
    await rest.merge_patch(
        CONFIG_MAP, namespace, "s1" + SUFFIX, {"data": {"keys": "tampered"}}, field_manager="test"
    )
    with anyio.fail_after(CONVERGE_SECONDS):
        await wait_for_mirrors(rest, namespace, expected)
    assert reconciles(running_controller, "error") == errors


async def test_survives_a_burst_of_a_thousand_secrets(
    api: Any, namespace: str, running_controller: Controller
) -> None:
    rest = RestClient.for_api(api)
    errors = reconciles(running_controller, "error")
    names = iter(range(BURST))

    async def create_some() -> None:
        for index in names:  # shared iterator: each index is created by exactly one task
            secret = sample_secret(namespace, f"burst-{index}", [f"k{index}"])
            await rest.create(SECRET, secret, field_manager="test")

    async with anyio.create_task_group() as tg:
        for _ in range(16):
            tg.start_soon(create_some)

    expected = {f"burst-{index}": f"k{index}" for index in range(BURST)}
    with anyio.fail_after(CONVERGE_SECONDS * 3):
        await wait_for_mirrors(rest, namespace, expected)
    await settle(running_controller)

    writes = mutating_requests()
    await settle(running_controller)
    assert mutating_requests() == writes
    assert reconciles(running_controller, "error") == errors
