from collections.abc import Iterable
from typing import Any

from manager.runtime.cache import Cache, CacheReader
from manager.runtime.controller import Request
from manager.runtime.handler import (
    EnqueueHandler,
    enqueue_for_object,
    enqueue_for_owner,
    enqueue_mapped,
)
from manager.runtime.kinds import ResourceKind
from manager.runtime.predicate import GenerationChanged
from manager.runtime.workqueue import DEFAULT_PRIORITY, LOW_PRIORITY

DEPLOYMENT = ResourceKind("apps/v1", "Deployment", "deployments", namespaced=True)
NODE = ResourceKind("v1", "Node", "nodes", namespaced=False)
MODEL = ResourceKind("example.com/v1", "Model", "models", namespaced=True)
READER = Cache(None).reader


class Queue:
    def __init__(self) -> None:
        self.added: list[Request] = []
        self.priorities: list[int] = []

    def add(self, item: Request, *, priority: int = DEFAULT_PRIORITY) -> None:
        self.added.append(item)
        self.priorities.append(priority)


def owner_ref(
    name: str, *, kind: str = "Deployment", api_version: str = "apps/v1", **extra: Any
) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": f"uid-{name}", **extra}


def pod(
    name: str = "p", *refs: dict[str, Any], labels: dict[str, str] | None = None, gen: int = 1
) -> dict[str, Any]:
    return {
        "metadata": {
            "name": name,
            "namespace": "ns",
            "generation": gen,
            "labels": labels or {},
            "ownerReferences": list(refs),
        }
    }


def test_enqueue_for_object_requests_the_object_itself() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_object(), READER)
    handler.on_add(pod("a"), True)
    handler.on_update(pod("b"), pod("b"))
    handler.on_delete(pod("c"))

    assert queue.added == [Request("ns", "a"), Request("ns", "b"), Request("ns", "c")]


def test_cluster_scoped_objects_get_the_empty_namespace() -> None:
    queue = Queue()
    EnqueueHandler(queue, enqueue_for_object(), READER).on_add({"metadata": {"name": "node-1"}})
    assert queue.added == [Request("", "node-1")]


def test_enqueue_for_owner_follows_only_the_controller_reference_by_default() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_owner(DEPLOYMENT), READER)
    handler.on_add(pod("p", owner_ref("web", controller=True), owner_ref("other")))

    assert queue.added == [Request("ns", "web")]


def test_enqueue_for_owner_can_follow_every_owner_of_the_kind() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_owner(DEPLOYMENT, only_controller=False), READER)
    handler.on_add(pod("p", owner_ref("web", controller=True), owner_ref("other")))

    assert queue.added == [Request("ns", "web"), Request("ns", "other")]


def test_enqueue_for_owner_matches_group_and_kind_in_any_version() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_owner(DEPLOYMENT), READER)
    handler.on_add(
        pod(
            "p",
            owner_ref("old-version", api_version="apps/v1beta1", controller=True),
            owner_ref("wrong-group", api_version="example.com/v1", controller=True),
            owner_ref("wrong-kind", kind="StatefulSet", controller=True),
        )
    )
    assert queue.added == [Request("ns", "old-version")]


def test_a_cluster_scoped_owner_is_requested_without_namespace() -> None:
    queue = Queue()
    EnqueueHandler(queue, enqueue_for_owner(NODE), READER).on_add(
        pod("p", owner_ref("node-1", kind="Node", api_version="v1", controller=True))
    )
    assert queue.added == [Request("", "node-1")]


def test_an_update_moving_a_child_between_owners_enqueues_both_once() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_owner(DEPLOYMENT), READER)
    handler.on_update(
        pod("p", owner_ref("before", controller=True)),
        pod("p", owner_ref("after", controller=True)),
    )
    handler.on_update(
        pod("p", owner_ref("same", controller=True)), pod("p", owner_ref("same", controller=True))
    )
    assert queue.added == [Request("ns", "before"), Request("ns", "after"), Request("ns", "same")]


def test_enqueue_mapped_uses_the_function_for_old_and_new() -> None:
    def by_app_label(obj: dict[str, Any], reader: CacheReader) -> list[Request]:
        app = obj["metadata"]["labels"].get("app")
        return [Request("ns", app)] if app else []

    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_mapped(by_app_label), READER)
    handler.on_update(pod(labels={"app": "x"}), pod(labels={"app": "y"}))
    handler.on_add(pod(labels={}))

    assert queue.added == [Request("ns", "x"), Request("ns", "y")]


def test_predicates_filter_before_mapping() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_object(), READER, [GenerationChanged])
    handler.on_update(pod("status-only", gen=3), pod("status-only", gen=3))
    handler.on_update(pod("spec", gen=3), pod("spec", gen=4))

    assert queue.added == [Request("ns", "spec")]


def models_with_the_same_hash(obj: dict[str, Any], reader: CacheReader) -> Iterable[Request]:
    value = obj["metadata"]["labels"].get("hash", "")
    for model in reader.by_index(MODEL, "hash", value):
        yield Request(model["metadata"]["namespace"], model["metadata"]["name"])


def model(name: str, hash_value: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "ns", "resourceVersion": "1", "hash": hash_value}
    }


def test_a_mapper_reads_the_cache_through_the_reader() -> None:
    cache = Cache(None)
    informer = cache.register(MODEL, indexers={"hash": lambda o: [o["metadata"]["hash"]]})
    informer.replace([model("a", "h1"), model("b", "h2"), model("c", "h1")], "1")
    queue = Queue()

    handler = EnqueueHandler(queue, models_with_the_same_hash, cache.reader)
    handler.on_add(pod("endpoints", labels={"hash": "h1"}))

    assert queue.added == [Request("ns", "a"), Request("ns", "c")]


def test_a_mapper_reading_a_kind_not_synced_yet_maps_to_nothing() -> None:
    cache = Cache(None)
    cache.register(MODEL, indexers={"hash": lambda o: [o["metadata"]["hash"]]})  # never listed
    queue = Queue()

    EnqueueHandler(queue, models_with_the_same_hash, cache.reader).on_add(
        pod("endpoints", labels={"hash": "h1"})
    )

    assert queue.added == []


def test_adds_and_updates_come_at_the_change_priority_and_deletes_at_the_default() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_object(), READER, change_priority=LOW_PRIORITY)
    handler.on_add(pod("a"), False)
    handler.on_update(pod("b"), pod("b"))
    handler.on_delete(pod("c"))

    assert queue.priorities == [LOW_PRIORITY, LOW_PRIORITY, DEFAULT_PRIORITY]
