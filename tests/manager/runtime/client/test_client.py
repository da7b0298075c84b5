"""What the client decides without the API server; its writes are tested in
e2e/test_client_apply.py against a real one."""

from typing import Any

import pytest

from manager.runtime.client import Client, KindNotFoundError, KindRegistry, RestClient
from manager.runtime.identity import Identity
from tests.manager.runtime.fakes import WIDGET, ScriptedTransport, v1_widget, v2_widget

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


async def test_a_status_merge_patch_of_a_wire_kind_is_computed_and_sent_at_the_wire_version() -> (
    None
):
    """Removing a status field takes a merge patch, a fragment no converter translates: it is
    computed between the two statuses converted whole, and sent where the server stores them."""
    live = {**v1_widget(size=1), "status": {"size": 2, "note": "gone soon"}}
    transport = ScriptedTransport(lambda *_: {**v2_widget(replicas=1), "status": {"replicas": 3}})
    kinds = KindRegistry()
    kinds.add(WIDGET)
    client = Client(RestClient(transport), IDENTITY, kinds=kinds)  # type: ignore[arg-type]

    assert await client.apply_status_if_changed({"size": 3}, live) is True

    [(method, path, body)] = transport.sent
    assert (method, path) == ("PATCH", "/apis/example.com/v2/namespaces/ns/widgets/w/status")
    assert body == {"status": {"replicas": 3, "note": None}}
