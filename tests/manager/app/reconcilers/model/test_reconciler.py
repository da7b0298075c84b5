"""The DynamoModel reconciler over fakes: what it loads where, what it remembers, what it
reports, and how deletion unloads within bounds (e2e/test_operator_model.py runs it for real)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import anyio
import pytest

from manager.app.reconcilers.model import ModelKinds, ModelReconciler
from manager.runtime.client import Invalid, NotFound
from manager.runtime.controller import Request, Result, TerminalError
from tests.manager.runtime.fakes import FakeRecorder

from .fakes import (
    MODEL,
    FakeClient,
    FakeReader,
    FakeWorkers,
    address,
    endpoint_slice,
    model,
)

pytestmark = pytest.mark.anyio

REQUEST = Request("ns", "m")
A, B, C = "10.1.0.1", "10.1.0.2", "10.1.0.3"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Setup:
    def __init__(self, obj: dict[str, Any] | None, *ips: str, **options: Any) -> None:
        self.reader = FakeReader(obj, endpoint_slice(*ips))
        self.client = FakeClient()
        self.recorder = FakeRecorder()
        self.workers = FakeWorkers()
        self.reconciler = ModelReconciler(
            client=self.client,  # type: ignore[arg-type]
            reader=self.reader,  # type: ignore[arg-type]
            recorder=self.recorder,  # type: ignore[arg-type]
            workers=self.workers,
            kinds=ModelKinds(model=MODEL),
            now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
            **options,
        )

    async def reconcile(self) -> Result | None:
        result = await self.reconciler.reconcile(REQUEST)
        if self.client.statuses and self.reader.model is not None:
            self.reader.model["status"] = self.client.status  # the cache catches up
        return result

    def serve(self, *ips: str) -> None:
        self.reader.slices = [endpoint_slice(*ips)]


def counts(status: dict[str, Any]) -> tuple[int, int]:
    return status["readyEndpoints"], status["totalEndpoints"]


async def test_a_lora_is_loaded_on_each_worker_once() -> None:
    world = Setup(model(), A, B)

    assert await world.reconcile() is None
    assert await world.reconcile() is None

    assert world.workers.calls == [
        ("load", address(A), "math s3://b/math"),
        ("load", address(B), "math s3://b/math"),
    ]
    assert counts(world.client.status) == (2, 2)
    # The finalizer, once (the cache has not shown it yet), guarded by the version read.
    assert world.client.rest.patches == [
        [
            {"op": "test", "path": "/metadata/resourceVersion", "value": "10"},
            {"op": "add", "path": "/metadata/finalizers", "value": ["nvidia.com/finalizer"]},
        ]
    ]
    assert world.recorder.reasons() == ["LoRALoaded", "EndpointsReady"]


async def test_a_finalizer_is_appended_to_those_already_there() -> None:
    world = Setup(model(finalizers=["other/finalizer"]), A)

    await world.reconcile()

    [patch] = world.client.rest.patches
    assert patch[1] == {
        "op": "add",
        "path": "/metadata/finalizers/-",
        "value": "nvidia.com/finalizer",
    }


async def test_new_workers_get_it_and_a_worker_that_comes_back_gets_it_again() -> None:
    world = Setup(model(), A)
    await world.reconcile()

    world.serve(A, B)
    await world.reconcile()
    world.serve(B)
    await world.reconcile()
    world.serve(A, B)
    await world.reconcile()

    assert world.workers.called("load") == [address(A), address(B), address(A)]
    assert counts(world.client.status) == (2, 2)


async def test_failures_are_reported_and_only_they_are_retried_after_30s() -> None:
    world = Setup(model(), A, B)
    world.workers.answers[address(B)] = "fail"

    result = await world.reconcile()

    assert result == Result(requeue_after=30.0)
    status = world.client.status
    assert counts(status) == (1, 2)
    assert [(e["ready"], e.get("message")) for e in status["endpoints"]] == [
        (True, None),
        (False, "HTTP 500: boom"),
    ]
    warning = next(event for event in world.recorder.events if event[1] == "PartialEndpointFailure")
    assert warning[0] == "Warning"
    assert f"{address(B)} (HTTP 500: boom)" in warning[2]
    assert "1 of 2" in warning[2]

    world.workers.answers.clear()
    assert await world.reconcile() is None
    assert world.workers.called("load") == [address(A), address(B), address(B)]
    assert counts(world.client.status) == (2, 2)


async def test_a_changed_adapter_is_unloaded_then_loaded_again() -> None:
    world = Setup(model(), A)
    await world.reconcile()

    world.reader.model = model(uri="s3://b/math-v2", generation=2)
    await world.reconcile()

    assert world.workers.calls == [
        ("load", address(A), "math s3://b/math"),
        ("unload", address(A), "math"),
        ("load", address(A), "math s3://b/math-v2"),
    ]


async def test_a_recreated_model_is_loaded_again() -> None:
    world = Setup(model(), A)
    await world.reconcile()
    world.reader.model = None
    await world.reconcile()

    world.reader.model = model(uid="uid-2")
    await world.reconcile()

    assert world.workers.called("load") == [address(A), address(A)]


async def test_calls_run_a_few_at_a_time() -> None:
    ips = [f"10.1.1.{index}" for index in range(1, 8)]
    world = Setup(model(), *ips, parallelism=3)
    world.workers.gate = anyio.Event()

    async with anyio.create_task_group() as group:
        group.start_soon(world.reconcile)
        await anyio.sleep(0.05)
        assert world.workers.in_flight == 3
        world.workers.gate.set()

    assert world.workers.most_in_flight == 3
    assert counts(world.client.status) == (7, 7)


async def test_deletion_unloads_then_releases_the_finalizer_even_from_a_hung_worker() -> None:
    obj = model(deleting=True, finalizers=["other/finalizer", "nvidia.com/finalizer"])
    world = Setup(obj, A, B, unload_timeout=0.2)
    world.workers.answers[address(B)] = "hang"

    with anyio.fail_after(5):
        assert await world.reconcile() is None

    assert sorted(world.workers.called("unload")) == [address(A), address(B)]
    assert world.client.rest.patches == [
        [
            {"op": "test", "path": "/metadata/finalizers/1", "value": "nvidia.com/finalizer"},
            {"op": "remove", "path": "/metadata/finalizers/1"},
        ]
    ]
    [(event_type, reason, message)] = world.recorder.events
    assert (event_type, reason) == ("Warning", "LoRAUnloadFailed")
    assert f"{address(B)} (not done within 0.2s)" in message
    assert address(A) not in message
    assert world.client.statuses == []


async def test_a_deletion_without_our_finalizer_calls_nobody() -> None:
    world = Setup(model(deleting=True, finalizers=["other/finalizer"]), A)

    await world.reconcile()

    assert world.workers.calls == []
    assert world.client.rest.patches == []


async def test_a_base_model_reports_its_workers_without_calls_or_finalizer() -> None:
    world = Setup(model(model_type="base", uri=""), A, B)

    assert await world.reconcile() is None

    assert world.workers.calls == []
    assert world.client.rest.patches == []
    assert counts(world.client.status) == (2, 2)
    assert world.recorder.events == [
        ("Normal", "EndpointsDiscovered", "Found 2 endpoint(s) for base model")
    ]


async def test_an_invalid_lora_is_reported_and_nothing_is_called() -> None:
    world = Setup(model(uri=""), A)

    assert await world.reconcile() is None

    assert world.workers.calls == []
    assert world.client.rest.patches == []
    ready = next(c for c in world.client.status["conditions"] if c["type"] == "EndpointsReady")
    assert (ready["status"], ready["reason"]) == ("False", "ValidationFailed")
    assert world.recorder.reasons() == ["ValidationFailed"]


async def test_a_model_deleted_during_the_pass_ends_it_quietly() -> None:
    world = Setup(model(), A)
    world.client.status_refusal = NotFound(404, "NotFound", 'dynamomodels "m" not found', {})

    assert await world.reconcile() is None  # not an error to retry: the model is gone

    assert world.recorder.reasons() == ["LoRALoaded"]  # not the status's EndpointsReady


async def test_a_status_the_api_server_refuses_is_told_on_the_model_and_not_retried() -> None:
    world = Setup(model(), A)
    world.client.status_refusal = Invalid(422, "Invalid", "status.totalEndpoints: Invalid", {})

    with pytest.raises(TerminalError):
        await world.reconcile()

    assert world.recorder.events[-1] == (
        "Warning",
        "StatusRejected",
        "the API server refused the status: status.totalEndpoints: Invalid",
    )


async def test_no_workers_is_reported_once_and_waits_for_slice_events() -> None:
    world = Setup(model())
    world.reader.slices = []

    assert await world.reconcile() is None
    assert await world.reconcile() is None

    assert counts(world.client.status) == (0, 0)
    assert world.recorder.events == [
        ("Warning", "NoEndpointsFound", "No endpoints found for base model Qwen/Qwen3-0.6B")
    ]
