"""Informers against a real kube-apiserver: they converge and deliver every change exactly once,
also across an apiserver restart and across etcd compaction (410 Gone -> relist)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from prometheus_client import REGISTRY

from manager.runtime.cache import Cache, Informer, InformerList
from manager.runtime.client import RestClient, TransportError
from manager.runtime.kinds import CONFIG_MAP

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

CONVERGE_SECONDS = 60
SELECTOR = "test=informer"  # leaves out kube-root-ca.crt, which the controller-manager adds


class History:
    """Every change an informer handed out, checked for order and duplicates as it arrives."""

    def __init__(self) -> None:
        self.live: dict[str, str] = {}  # name -> resourceVersion the handlers last saw
        self.events: list[tuple[str, str, str]] = []
        self.problems: list[str] = []

    def on_add(self, obj: dict[str, Any], is_in_initial_list: bool) -> None:
        name, rv = obj["metadata"]["name"], obj["metadata"]["resourceVersion"]
        if name in self.live:
            self.problems.append(f"add of {name} already seen at {self.live[name]}")
        self.live[name] = rv
        self.events.append(("add", name, rv))

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        name, rv = new["metadata"]["name"], new["metadata"]["resourceVersion"]
        if self.live.get(name) != old["metadata"]["resourceVersion"]:
            self.problems.append(f"update of {name} from a version handlers never saw")
        if int(rv) <= int(old["metadata"]["resourceVersion"]):
            self.problems.append(f"update of {name} went backwards or repeated")
        self.live[name] = rv
        self.events.append(("update", name, rv))

    def on_delete(self, obj: dict[str, Any]) -> None:
        name = obj["metadata"]["name"]
        if self.live.pop(name, None) is None:
            self.problems.append(f"delete of {name} never added")
        self.events.append(("delete", name, obj["metadata"]["resourceVersion"]))

    def since(self, mark: int) -> list[tuple[str, str]]:
        return sorted((kind, name) for kind, name, _ in self.events[mark:])


def config_map(namespace: str, name: str, value: str = "v1") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": {"test": "informer"}},
        "data": {"value": value},
    }


async def server_state(rest: RestClient, namespace: str) -> dict[str, str]:
    items, _ = await rest.list_all(CONFIG_MAP, namespace, label_selector=SELECTOR)
    return {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in items}


async def wait_until_converged(history: History, informer: Informer, rest: RestClient) -> None:
    """Poll until handlers and store agree with the server (a hang guard, not a timing check)."""
    with anyio.fail_after(CONVERGE_SECONDS):
        while True:
            try:
                expected = await server_state(rest, informer.namespace or "")
            except TransportError:  # a pooled connection the API server restart closed
                await anyio.sleep(0.2)
                continue
            cached = {
                o["metadata"]["name"]: o["metadata"]["resourceVersion"]
                for o in informer.store.list()
            }
            if history.live == expected and cached == expected:
                return
            await anyio.sleep(0.2)


async def make_changes(rest: RestClient, namespace: str, tag: str) -> None:
    """Create 3, update 2 and delete 2 config maps (of those made by `prepare`)."""
    for index in range(3):
        new = config_map(namespace, f"{tag}-new-{index}")
        await rest.create(CONFIG_MAP, new, field_manager="t")
    for index in range(2):
        await rest.apply(CONFIG_MAP, config_map(namespace, f"base-{index}", tag), field_manager="t")
    for index in range(2, 4):
        await rest.delete(CONFIG_MAP, namespace, f"base-{index}")


def events_of_changes(tag: str) -> list[tuple[str, str]]:
    """The events `make_changes(..., tag)` must produce, each exactly once (sorted)."""
    return sorted(
        [("add", f"{tag}-new-{i}") for i in range(3)]
        + [("update", "base-0"), ("update", "base-1")]
        + [("delete", "base-2"), ("delete", "base-3")]
    )


async def prepare(rest: RestClient, namespace: str, count: int = 10) -> None:
    for index in range(count):
        await rest.create(CONFIG_MAP, config_map(namespace, f"base-{index}"), field_manager="t")


async def watched_base_config_maps(
    api: Any, namespace: str
) -> tuple[RestClient, Informer, History]:
    """Ten prepared config maps and a (not yet running) informer recording their events."""
    rest = RestClient.for_api(api)
    await prepare(rest, namespace)
    informer = Informer(api, CONFIG_MAP, namespace, label_selector=SELECTOR)
    history = History()
    informer.add_event_handler(history)
    return rest, informer, history


def relists(reason: str) -> float:
    value = REGISTRY.get_sample_value(
        "informer_relists_total", {"resource": "configmaps", "reason": reason}
    )
    return value or 0.0


async def test_an_informer_lists_then_streams_every_change(api: Any, namespace: str) -> None:
    rest = RestClient.for_api(api)
    await prepare(rest, namespace)
    cache = Cache(api, namespace=namespace)
    informer = cache.register(CONFIG_MAP, label_selector=SELECTOR)
    history = History()
    informer.add_event_handler(history)

    async with anyio.create_task_group() as tg:
        await tg.start(cache.run)
        with anyio.fail_after(CONVERGE_SECONDS):
            await cache.wait_for_sync()
        assert history.since(0) == [("add", f"base-{i}") for i in range(10)]

        mark = len(history.events)
        await make_changes(rest, namespace, "live")
        await wait_until_converged(history, informer, rest)
        tg.cancel_scope.cancel()

    assert history.since(mark) == events_of_changes("live")
    assert history.problems == []


@pytest.mark.local_control_plane
async def test_informers_converge_across_an_apiserver_restart(
    api: Any, namespace: str, control_plane: Any
) -> None:
    rest, informer, history = await watched_base_config_maps(api, namespace)

    async with anyio.create_task_group() as tg:
        await tg.start(informer.run)
        await wait_until_converged(history, informer, rest)
        mark = len(history.events)

        await anyio.to_thread.run_sync(control_plane.restart_apiserver)
        await make_changes(rest, namespace, "after-restart")
        await wait_until_converged(history, informer, rest)
        tg.cancel_scope.cancel()

    assert history.since(mark) == events_of_changes("after-restart")
    assert history.problems == []


@pytest.mark.local_control_plane
async def test_a_compacted_resource_version_triggers_a_relist_that_replays_the_gap(
    api: Any, namespace: str, control_plane: Any
) -> None:
    rest, informer, history = await watched_base_config_maps(api, namespace)
    async with anyio.create_task_group() as tg:
        await tg.start(informer.run)
        await wait_until_converged(history, informer, rest)
        tg.cancel_scope.cancel()

    # While the informer is stopped: changes, then their history is compacted away and the
    # apiserver's watch cache dropped, so resuming from the informer's resourceVersion gets 410.
    mark = len(history.events)
    await make_changes(rest, namespace, "in-gap")
    await anyio.to_thread.run_sync(control_plane.compact_etcd)
    await anyio.to_thread.run_sync(control_plane.restart_apiserver)
    expired_before = relists("expired")

    async with anyio.create_task_group() as tg:
        await tg.start(informer.run)
        await wait_until_converged(history, informer, rest)
        tg.cancel_scope.cancel()

    assert relists("expired") == expired_before + 1
    assert history.since(mark) == events_of_changes("in-gap")
    assert history.problems == []


@pytest.mark.local_control_plane
async def test_a_list_whose_continue_token_expires_starts_over_and_adds_each_object_once(
    api: Any, namespace: str, control_plane: Any
) -> None:
    rest = RestClient.for_api(api)
    await prepare(rest, namespace)
    informer = Informer(api, CONFIG_MAP, namespace, label_selector=SELECTOR, page_size=4)
    history = History()
    informer.add_event_handler(history)
    pages: list[int] = []
    begin_list = informer.begin_list

    def compacting_after_the_first_page() -> InformerList:
        listing = begin_list()
        add = listing.add

        def add_page(objects: list[dict[str, Any]]) -> None:
            pages.append(len(objects))
            if len(pages) == 1:  # a change, then the next page's revision is compacted away
                admin = control_plane.local.admin_client()
                admin.delete(f"/api/v1/namespaces/{namespace}/configmaps/base-0")
                control_plane.compact_etcd()
            add(objects)

        listing.add = add_page  # type: ignore[method-assign]
        return listing

    informer.begin_list = compacting_after_the_first_page  # type: ignore[method-assign]
    async with anyio.create_task_group() as tg:
        await tg.start(informer.run)
        await wait_until_converged(history, informer, rest)
        tg.cancel_scope.cancel()

    assert pages == [4, 4, 4, 1]  # the list started over from its first page, without base-0
    assert history.since(0) == sorted(
        [("add", f"base-{i}") for i in range(10)] + [("delete", "base-0")]
    )
    assert history.problems == []
