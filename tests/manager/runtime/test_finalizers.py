"""The finalizer helper writes guarded JSON patches, once per object, and bears a deleted one."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from manager.runtime.client import NotFound
from manager.runtime.finalizers import Finalizer
from manager.runtime.kinds import ResourceKind

pytestmark = pytest.mark.anyio

WIDGET = ResourceKind("example.com/v1", "Widget", "widgets", True)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class FakeRest:
    def __init__(self, error: Exception | None = None) -> None:
        self.patches: list[list[dict[str, Any]]] = []
        self.error = error

    async def json_patch(
        self, kind: ResourceKind, namespace: str, name: str, ops: list[dict[str, Any]], **_: Any
    ) -> dict[str, Any]:
        self.patches.append(ops)
        if self.error is not None:
            raise self.error
        return {}


def widget(*finalizers: str) -> dict[str, Any]:
    metadata = {"namespace": "ns", "name": "w", "uid": "u1", "resourceVersion": "7"}
    return {"metadata": {**metadata, "finalizers": list(finalizers)} if finalizers else metadata}


def finalizer(rest: FakeRest) -> Finalizer:
    client = SimpleNamespace(rest=rest, identity=SimpleNamespace(field_manager="test"))
    return Finalizer(client, WIDGET, "example.com/cleanup")  # type: ignore[arg-type]


async def test_added_once_guarded_by_the_version_read() -> None:
    rest = FakeRest()
    owned = finalizer(rest)

    await owned.ensure(widget())
    await owned.ensure(widget())  # the cache has not caught up: not added twice

    assert rest.patches == [
        [
            {"op": "test", "path": "/metadata/resourceVersion", "value": "7"},
            {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/cleanup"]},
        ]
    ]


async def test_appended_to_others_and_removed_at_its_index() -> None:
    rest = FakeRest()
    owned = finalizer(rest)

    await owned.ensure(widget("other"))
    await owned.release(widget("other", "example.com/cleanup"))

    assert rest.patches[0][1] == {
        "op": "add",
        "path": "/metadata/finalizers/-",
        "value": "example.com/cleanup",
    }
    assert rest.patches[1] == [
        {"op": "test", "path": "/metadata/finalizers/1", "value": "example.com/cleanup"},
        {"op": "remove", "path": "/metadata/finalizers/1"},
    ]


async def test_releasing_from_an_object_already_gone_or_without_it_is_quiet() -> None:
    rest = FakeRest(error=NotFound(404, "NotFound", "gone", {}))
    owned = finalizer(rest)

    assert owned.holds(widget("example.com/cleanup"))
    await owned.release(widget("example.com/cleanup"))
    await owned.release(widget("other"))

    assert len(rest.patches) == 1
