"""The graph's adapters: created when missing with the service's replicas, never updated (the
adapter owns its replicas from then on), deleted when the service no longer asks for one."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.builders import BuildContext
from dynamo_operator.builders.scaling_adapter import build_scaling_adapters
from manager.app.reconcilers.graph_deployment.scaling_adapters import sync_scaling_adapters
from manager.runtime.client import Forbidden
from manager.runtime.ownership import ChildChanges
from tests.manager.app.reconcilers.scaling_adapter.fakes import (
    FakeClient,
    FakeReader,
    adapter,
    graph,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def sync(live: dict[str, Any], *existing: dict[str, Any]) -> tuple[FakeClient, ChildChanges]:
    reader = FakeReader(live, *existing)
    client = FakeClient(reader)
    changes = ChildChanges()
    desired = build_scaling_adapters(DynamoGraphDeployment.model_validate(live), BuildContext())
    await sync_scaling_adapters(client, reader, live, desired, changes)  # type: ignore[arg-type]
    return client, changes


async def test_a_missing_adapter_is_created_with_the_services_replicas() -> None:
    client, changes = await sync(graph(replicas=4))

    [created] = client.created
    assert created["metadata"]["name"] == "llm-vllmworker"
    assert created["spec"] == {
        "replicas": 4,
        "dgdRef": {"name": "llm", "serviceName": "VllmWorker"},
    }
    assert changes.created == ["DynamoGraphDeploymentScalingAdapter/llm-vllmworker"]


async def test_an_existing_adapter_is_never_updated() -> None:
    client, changes = await sync(graph(replicas=4), adapter(9))

    assert (client.created, client.deleted, bool(changes)) == ([], [], False)


async def test_an_adapter_whose_service_lost_the_flag_or_left_is_deleted() -> None:
    gone = adapter(2, name="llm-gone", service="Gone")
    client, changes = await sync(graph(enabled=False), adapter(3), gone)

    assert sorted(client.deleted) == ["llm-gone", "llm-vllmworker"]
    assert sorted(changes.deleted) == [
        "DynamoGraphDeploymentScalingAdapter/llm-gone",
        "DynamoGraphDeploymentScalingAdapter/llm-vllmworker",
    ]


async def test_adapters_the_graph_does_not_control_are_left_alone() -> None:
    borrowed = adapter(2, name="llm-borrowed", controller=False)
    other = adapter(2, name="llm-other", owner_uid="another-graph")

    client, _ = await sync(graph(enabled=False), borrowed, other)

    assert client.deleted == []


async def test_a_namespace_being_deleted_stops_the_sync() -> None:
    live = graph()
    reader = FakeReader(live)
    client = FakeClient(reader)

    async def refuse(obj: dict[str, Any]) -> dict[str, Any]:
        raise Forbidden(
            403,
            "Forbidden",
            "unable to create new content in namespace ns because it is being terminated",
            {"details": {"causes": [{"reason": "NamespaceTerminating"}]}},
        )

    client.create = refuse  # type: ignore[method-assign]
    changes = ChildChanges()
    desired = build_scaling_adapters(DynamoGraphDeployment.model_validate(live), BuildContext())

    await sync_scaling_adapters(client, reader, live, desired, changes)  # type: ignore[arg-type]

    assert changes.namespace_terminating
