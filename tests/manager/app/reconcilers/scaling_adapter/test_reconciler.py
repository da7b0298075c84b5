"""The scaling adapter reconciler over fakes: when it writes the adapter's replicas into the
graph, what status it reports, and what it leaves alone (e2e/operator/test_scaling_adapter.py runs
it for real)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from manager.app.kinds import GRAPH, SCALING_ADAPTER
from manager.app.reconcilers.scaling_adapter import AdapterKinds, ScalingAdapterReconciler
from manager.runtime.client import Forbidden
from manager.runtime.controller import Request
from tests.manager.runtime.fakes import FakeRecorder

from .fakes import FakeClient, FakeReader, adapter, graph

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SELECTOR = "nvidia.com/dynamo-component=VllmWorker,nvidia.com/dynamo-graph-deployment-name=llm"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Setup:
    def __init__(self, *objects: dict[str, Any]) -> None:
        self.reader = FakeReader(*objects)
        self.client = FakeClient(self.reader)
        self.recorder = FakeRecorder()
        self.reconciler = ScalingAdapterReconciler(
            client=self.client,  # type: ignore[arg-type]
            reader=self.reader,  # type: ignore[arg-type]
            recorder=self.recorder,  # type: ignore[arg-type]
            kinds=AdapterKinds(adapter=SCALING_ADAPTER, graph=GRAPH),
            now=lambda: NOW,
        )

    async def reconcile(self, name: str = "llm-vllmworker") -> None:
        assert await self.reconciler.reconcile(Request("ns", name)) is None


async def test_a_scaled_adapter_writes_its_replicas_into_the_graph_and_reports_it() -> None:
    setup = Setup(graph(replicas=1), adapter(3))

    await setup.reconcile()

    assert setup.client.patches == [
        (
            "DynamoGraphDeployment",
            "llm",
            {
                "metadata": {"uid": "graph-uid"},
                "spec": {"services": {"VllmWorker": {"replicas": 3}}},
            },
        )
    ]
    assert setup.client.statuses == [
        {"replicas": 3, "selector": SELECTOR, "lastScaleTime": "2026-03-01T12:00:00Z"}
    ]
    assert setup.recorder.events == [
        ("Normal", "Scaled", "Scaled llm service VllmWorker from 1 to 3 replicas")
    ]


async def test_in_agreement_nothing_is_written_but_a_missing_status() -> None:
    setup = Setup(graph(replicas=3), adapter(3))

    await setup.reconcile()

    assert setup.client.patches == []
    assert setup.client.statuses == [{"replicas": 3, "selector": SELECTOR}]


async def test_at_steady_state_nothing_is_written() -> None:
    status = {"replicas": 3, "selector": SELECTOR, "lastScaleTime": "2026-02-01T00:00:00Z"}
    setup = Setup(graph(replicas=3), adapter(3, status=status))

    await setup.reconcile()

    assert (setup.client.patches, setup.client.statuses, setup.recorder.events) == ([], [], [])


async def test_a_graph_edit_behind_the_adapters_back_is_undone() -> None:
    status = {"replicas": 3, "selector": SELECTOR, "lastScaleTime": "2026-02-01T00:00:00Z"}
    setup = Setup(graph(replicas=7), adapter(3, status=status))

    await setup.reconcile()

    assert setup.client.patches[0][2]["spec"] == {"services": {"VllmWorker": {"replicas": 3}}}
    assert setup.client.statuses[0]["lastScaleTime"] == "2026-03-01T12:00:00Z"


@pytest.mark.parametrize(
    "objects",
    [
        (graph(enabled=False), adapter(3)),
        (graph(), adapter(3, service="Gone", name="llm-gone")),
        (graph(), adapter(3, owner_uid="an-older-graph")),
        (graph(), adapter(3, controller=False)),
        (adapter(3),),
    ],
    ids=["flag-off", "service-gone", "older-graph", "not-controller", "no-graph"],
)
async def test_an_adapter_that_scales_nothing_is_left_alone(
    objects: tuple[dict[str, Any], ...],
) -> None:
    setup = Setup(*objects)

    await setup.reconcile(objects[-1]["metadata"]["name"])

    assert (setup.client.patches, setup.client.statuses) == ([], [])


async def test_a_deleted_or_deleting_adapter_is_left_alone() -> None:
    deleting = adapter(3)
    deleting["metadata"]["deletionTimestamp"] = "2026-03-01T00:00:00Z"
    setup = Setup(graph(), deleting)

    await setup.reconcile()
    await setup.reconcile("missing")

    assert (setup.client.patches, setup.client.statuses) == ([], [])


async def test_a_refused_write_is_told_on_the_adapter_and_retried() -> None:
    setup = Setup(graph(replicas=1), adapter(3))
    setup.client.refusal = Forbidden(403, "Forbidden", "admission webhook denied the request", {})

    with pytest.raises(Forbidden):
        await setup.reconcile()

    [(event_type, reason, message)] = setup.recorder.events
    assert (event_type, reason) == ("Warning", "ScaleFailed")
    assert message.startswith("cannot set llm service VllmWorker to 3 replicas: 403 Forbidden")
    assert setup.client.statuses == []


async def test_a_scale_time_the_cache_has_not_seen_yet_is_not_lost() -> None:
    setup = Setup(graph(replicas=1), adapter(3))
    await setup.reconcile()
    # The graph's change reaches the cache (and brings the adapter back) before the adapter's
    # new status does.
    setup.reader.objects[("DynamoGraphDeployment", "ns", "llm")] = graph(replicas=3)

    await setup.reconcile()

    assert [status.get("lastScaleTime") for status in setup.client.statuses] == [
        "2026-03-01T12:00:00Z",
        "2026-03-01T12:00:00Z",
    ]
    assert len(setup.client.patches) == 1


async def test_a_new_adapter_of_the_same_name_does_not_inherit_the_scale_time() -> None:
    setup = Setup(graph(replicas=1), adapter(3))
    await setup.reconcile()
    recreated = adapter(1)
    recreated["metadata"]["uid"] = "a-new-uid"
    setup.reader.objects[("DynamoGraphDeploymentScalingAdapter", "ns", "llm-vllmworker")] = (
        recreated
    )
    setup.reader.objects[("DynamoGraphDeployment", "ns", "llm")] = graph(replicas=1)

    await setup.reconcile()

    assert setup.client.statuses[-1] == {"replicas": 1, "selector": SELECTOR}
