from typing import Any

import anyio
import pytest
from anyio.abc import TaskStatus

from manager.runtime.builder import ControllerBuilder
from manager.runtime.cache import Cache, CacheReader
from manager.runtime.controller import Controller, Request
from manager.runtime.kinds import CONFIG_MAP, SECRET, ResourceKind
from manager.runtime.manager import Manager
from manager.runtime.predicate import GenerationChanged, new_predicate_funcs

GRAPH = ResourceKind("example.com/v1", "Graph", "graphs", namespaced=True)


class FakeInformer:
    def __init__(self) -> None:
        self.handlers: list[Any] = []

    def add_event_handler(self, handler: Any) -> None:
        self.handlers.append(handler)

    async def wait_for_sync(self) -> None:
        pass

    def add(self, obj: dict[str, Any]) -> None:
        for handler in self.handlers:
            handler.on_add(obj, False)

    def update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        for handler in self.handlers:
            handler.on_update(old, new)


class FakeCache:
    """Fake informers to drive events by hand; reads come from a real cache filled by hand."""

    def __init__(self) -> None:
        self.informers: dict[ResourceKind, FakeInformer] = {}
        self.real = Cache(None)
        self.reader = self.real.reader

    def get_informer(self, kind: ResourceKind) -> FakeInformer:
        return self.informers.setdefault(kind, FakeInformer())

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        task_status.started()

    async def wait_for_sync(self) -> None:
        pass


async def reconcile(request: Request) -> None:
    return None


def obj(name: str, *, generation: int = 1, owner: str | None = None, **labels: str) -> Any:
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": "ns",
        "generation": generation,
        "labels": labels,
    }
    if owner:
        metadata["ownerReferences"] = [
            {"apiVersion": "example.com/v1", "kind": "Graph", "name": owner, "controller": True}
        ]
    return {"metadata": metadata}


@pytest.fixture
def cache() -> FakeCache:
    return FakeCache()


@pytest.fixture
def manager(cache: FakeCache) -> Manager:
    return Manager(cache=cache, health_port=None, metrics_port=None)


def queued(controller: Controller) -> list[Request]:
    return list(controller.queue._queued)


@pytest.mark.anyio
async def test_a_child_added_or_changed_waits_behind_owners_and_a_deleted_one_does_not(
    manager: Manager, cache: FakeCache
) -> None:
    controller = ControllerBuilder(manager).for_(GRAPH).owns(CONFIG_MAP).complete(reconcile)
    configs = cache.informers[CONFIG_MAP]

    configs.add(obj("g1-config", owner="g1"))
    cache.informers[GRAPH].add(obj("g2"))
    for handler in configs.handlers:
        handler.on_delete(obj("g3-config", owner="g3"))

    taken = [await controller.queue.get() for _ in range(3)]
    assert taken == [Request("ns", "g2"), Request("ns", "g3"), Request("ns", "g1")]


def test_for_and_owns_enqueue_the_object_and_the_controller_owner(
    manager: Manager, cache: FakeCache
) -> None:
    controller = ControllerBuilder(manager).for_(GRAPH).owns(CONFIG_MAP).complete(reconcile)

    cache.informers[GRAPH].add(obj("g1"))
    cache.informers[CONFIG_MAP].add(obj("g2-config", owner="g2"))
    cache.informers[CONFIG_MAP].add(obj("orphan"))

    assert queued(controller) == [Request("ns", "g1"), Request("ns", "g2")]
    assert controller.name == "graph"
    assert controller in manager.runnables
    assert controller.needs_leader_election


def test_watches_enqueues_what_the_mapper_returns(manager: Manager, cache: FakeCache) -> None:
    def by_graph_label(o: dict[str, Any], reader: CacheReader) -> list[Request]:
        return [Request("ns", o["metadata"]["labels"]["graph"])]

    controller = (
        ControllerBuilder(manager).for_(GRAPH).watches(SECRET, by_graph_label).complete(reconcile)
    )
    cache.informers[SECRET].add(obj("s", graph="g7"))

    assert queued(controller) == [Request("ns", "g7")]


def test_mappers_read_the_managers_cache(manager: Manager, cache: FakeCache) -> None:
    cache.real.register(GRAPH).replace([obj("g1"), obj("g2"), {"metadata": {"name": "x"}}], "1")

    def every_graph_in_the_namespace(o: dict[str, Any], reader: CacheReader) -> list[Request]:
        namespace = o["metadata"]["namespace"]
        return [Request(namespace, g["metadata"]["name"]) for g in reader.list(GRAPH, namespace)]

    controller = (
        ControllerBuilder(manager)
        .for_(GRAPH)
        .watches(SECRET, every_graph_in_the_namespace)
        .complete(reconcile)
    )
    cache.informers[SECRET].add(obj("lease"))

    assert queued(controller) == [Request("ns", "g1"), Request("ns", "g2")]


def test_for_predicates_filter_only_the_for_watch(manager: Manager, cache: FakeCache) -> None:
    controller = (
        ControllerBuilder(manager)
        .for_(GRAPH, GenerationChanged)
        .owns(CONFIG_MAP)
        .complete(reconcile)
    )
    cache.informers[GRAPH].update(obj("g1"), obj("g1"))  # status-only: same generation
    cache.informers[CONFIG_MAP].update(obj("c", owner="g2"), obj("c", owner="g2"))

    assert queued(controller) == [Request("ns", "g2")]


def test_event_filters_apply_to_every_watch(manager: Manager, cache: FakeCache) -> None:
    managed = new_predicate_funcs(lambda o: o["metadata"]["labels"].get("managed") == "yes")
    controller = (
        ControllerBuilder(manager)
        .for_(GRAPH)
        .owns(CONFIG_MAP)
        .with_event_filter(managed)
        .complete(reconcile)
    )
    cache.informers[GRAPH].add(obj("g1"))
    cache.informers[GRAPH].add(obj("g2", managed="yes"))
    cache.informers[CONFIG_MAP].add(obj("c", owner="g3"))

    assert queued(controller) == [Request("ns", "g2")]


def test_options_reach_the_controller(manager: Manager) -> None:
    controller = (
        ControllerBuilder(manager)
        .named("graphs-fast")
        .for_(GRAPH)
        .with_options(max_concurrent_reconciles=8, needs_leader_election=False)
        .complete(reconcile)
    )
    assert controller.name == "graphs-fast"
    assert controller.max_concurrent_reconciles == 8
    assert not controller.needs_leader_election


def test_watches_of_one_kind_share_the_informer(manager: Manager, cache: FakeCache) -> None:
    ControllerBuilder(manager).for_(GRAPH).owns(CONFIG_MAP).complete(reconcile)
    ControllerBuilder(manager).named("other").for_(CONFIG_MAP).complete(reconcile)

    assert len(cache.informers[CONFIG_MAP].handlers) == 2


def test_mistakes_are_refused(manager: Manager) -> None:
    ControllerBuilder(manager).for_(GRAPH).complete(reconcile)
    with pytest.raises(ValueError, match="already exists"):
        ControllerBuilder(manager).for_(GRAPH).complete(reconcile)
    with pytest.raises(ValueError, match="call for_ before owns"):
        ControllerBuilder(manager).owns(CONFIG_MAP)
    with pytest.raises(ValueError, match="one kind"):
        ControllerBuilder(manager).for_(GRAPH).for_(SECRET)
    with pytest.raises(ValueError, match="named"):
        ControllerBuilder(manager).complete(reconcile)
    with pytest.raises(ValueError, match="no cache"):
        ControllerBuilder(Manager(health_port=None, metrics_port=None)).for_(GRAPH).complete(
            reconcile
        )
