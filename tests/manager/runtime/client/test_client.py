"""What the client decides without the API server; its writes are tested in
e2e/test_client_apply.py against a real one."""

from typing import Any

import pytest

from manager.runtime.client import Client, KindNotFoundError, RestClient
from manager.runtime.identity import Identity

pytestmark = pytest.mark.anyio

IDENTITY = Identity.for_product("test-operator", domain="example.com", version="0")


class NoRequests:
    """A transport that fails the test if the client sends anything."""

    server = "https://apiserver.invalid"

    async def request(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"unexpected request {args}")


@pytest.fixture
def client() -> Client:
    return Client(RestClient(NoRequests()), IDENTITY)  # type: ignore[arg-type]


def graph(**extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Graph",
        "metadata": {"name": "g", "namespace": "ns", "uid": "u1"},
        **extra,
    }


async def test_apply_if_changed_refuses_an_object_with_a_status(client: Client) -> None:
    with pytest.raises(ValueError, match="apply_status_if_changed"):
        await client.apply_if_changed(graph(spec={}, status={"state": "ok"}), None)


async def test_an_unchanged_status_makes_no_request(client: Client) -> None:
    live = graph(spec={"x": 1}, status={"state": "ok", "conditions": [], "replicas": 2})

    assert await client.apply_status_if_changed({"state": "ok", "replicas": 2}, live) is False
    assert await client.apply_status_if_changed({"state": "ok", "replicas": 2.0}, live) is False


async def test_kinds_come_from_the_registry_without_discovery(client: Client) -> None:
    assert client.kind_of({"apiVersion": "v1", "kind": "ConfigMap"}).plural == "configmaps"
    with pytest.raises(KindNotFoundError, match="Graph"):
        client.kind_of(graph())
    with pytest.raises(KindNotFoundError):
        await client.apply_status_if_changed({"state": "new"}, graph(status={"state": "old"}))
