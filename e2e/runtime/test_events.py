"""The event recorder against a real kube-apiserver: repeats become one Event with a count,
distinct reasons stay distinct, and recording never waits for the API server."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from prometheus_client import REGISTRY

from manager.runtime.client import RestClient
from manager.runtime.events import EventRecorder
from manager.runtime.identity import Identity
from manager.runtime.kinds import CONFIG_MAP, EVENT

IDENTITY = Identity.for_product("test-controller", domain="example.com", version="0")

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def events_about(rest: RestClient, namespace: str, name: str) -> list[dict[str, Any]]:
    items, _ = await rest.list_all(EVENT, namespace, field_selector=f"involvedObject.name={name}")
    return items


async def wait_for_counts(
    rest: RestClient, namespace: str, name: str, expected: dict[str, int]
) -> list[dict[str, Any]]:
    with anyio.fail_after(30):
        while True:
            events = await events_about(rest, namespace, name)
            if {e["reason"]: e.get("count", 1) for e in events} == expected:
                return events
            await anyio.sleep(0.2)


async def test_repeated_events_are_one_event_with_a_count(api: Any, namespace: str) -> None:
    rest = RestClient.for_api(api)
    subject = await rest.create(
        CONFIG_MAP,
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "subject", "namespace": namespace},
        },
        field_manager="test",
    )
    recorder = EventRecorder(api, IDENTITY)

    async with anyio.create_task_group() as tg:
        await tg.start(recorder.run)
        for _ in range(5):
            recorder.event(subject, "Normal", "Synced", "children are up to date")
        recorder.event(subject, "Warning", "InvalidSpec", "spec.replicas must be >= 0")
        events = await wait_for_counts(rest, namespace, "subject", {"Synced": 5, "InvalidSpec": 1})
        tg.cancel_scope.cancel()

    synced = next(e for e in events if e["reason"] == "Synced")
    assert synced["type"] == "Normal"
    assert synced["message"] == "children are up to date"
    assert synced["involvedObject"]["uid"] == subject["metadata"]["uid"]
    assert synced["involvedObject"]["kind"] == "ConfigMap"
    assert synced["source"]["component"] == "test-controller"
    assert {entry["manager"] for entry in synced["metadata"]["managedFields"]} == {
        "test-controller-events"
    }, "the Event's field manager comes from the identity"


async def test_a_full_buffer_drops_events_instead_of_blocking(api: Any, namespace: str) -> None:
    recorder = EventRecorder(api, IDENTITY, buffer_size=3)
    subject = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "x", "namespace": namespace},
    }
    dropped_before = (
        REGISTRY.get_sample_value("event_recorder_dropped_total", {"reason": "buffer_full"}) or 0.0
    )

    for index in range(10):  # the writer is not running: nothing drains the buffer
        recorder.event(subject, "Normal", "Reason", f"message {index}")

    dropped = REGISTRY.get_sample_value("event_recorder_dropped_total", {"reason": "buffer_full"})
    assert dropped == dropped_before + 7

    rest = RestClient.for_api(api)
    async with anyio.create_task_group() as tg:
        await tg.start(recorder.run)
        with anyio.fail_after(30):
            while True:
                events = await events_about(rest, namespace, "x")
                if len(events) == 3:
                    break
                await anyio.sleep(0.2)
        tg.cancel_scope.cancel()
    assert sorted(e["message"] for e in events) == ["message 0", "message 1", "message 2"]
