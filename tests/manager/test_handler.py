from typing import Any

from manager.controller import Request
from manager.handler import EnqueueHandler, enqueue_for_object, enqueue_for_owner, enqueue_mapped
from manager.kinds import ResourceKind
from manager.predicate import GenerationChanged

DEPLOYMENT = ResourceKind("apps/v1", "Deployment", "deployments", namespaced=True)
NODE = ResourceKind("v1", "Node", "nodes", namespaced=False)


class Queue:
    def __init__(self) -> None:
        self.added: list[Request] = []

    def add(self, item: Request) -> None:
        self.added.append(item)


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
    handler = EnqueueHandler(queue, enqueue_for_object())
    handler.on_add(pod("a"), True)
    handler.on_update(pod("b"), pod("b"))
    handler.on_delete(pod("c"))

    assert queue.added == [Request("ns", "a"), Request("ns", "b"), Request("ns", "c")]


def test_cluster_scoped_objects_get_the_empty_namespace() -> None:
    queue = Queue()
    EnqueueHandler(queue, enqueue_for_object()).on_add({"metadata": {"name": "node-1"}})
    assert queue.added == [Request("", "node-1")]


def test_enqueue_for_owner_follows_only_the_controller_reference_by_default() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_owner(DEPLOYMENT))
    handler.on_add(pod("p", owner_ref("web", controller=True), owner_ref("other")))

    assert queue.added == [Request("ns", "web")]


def test_enqueue_for_owner_can_follow_every_owner_of_the_kind() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_owner(DEPLOYMENT, only_controller=False))
    handler.on_add(pod("p", owner_ref("web", controller=True), owner_ref("other")))

    assert queue.added == [Request("ns", "web"), Request("ns", "other")]


def test_enqueue_for_owner_matches_group_and_kind_in_any_version() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_owner(DEPLOYMENT))
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
    EnqueueHandler(queue, enqueue_for_owner(NODE)).on_add(
        pod("p", owner_ref("node-1", kind="Node", api_version="v1", controller=True))
    )
    assert queue.added == [Request("", "node-1")]


def test_an_update_moving_a_child_between_owners_enqueues_both_once() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_owner(DEPLOYMENT))
    handler.on_update(
        pod("p", owner_ref("before", controller=True)),
        pod("p", owner_ref("after", controller=True)),
    )
    handler.on_update(
        pod("p", owner_ref("same", controller=True)), pod("p", owner_ref("same", controller=True))
    )
    assert queue.added == [Request("ns", "before"), Request("ns", "after"), Request("ns", "same")]


def test_enqueue_mapped_uses_the_function_for_old_and_new() -> None:
    def by_app_label(obj: dict[str, Any]) -> list[Request]:
        app = obj["metadata"]["labels"].get("app")
        return [Request("ns", app)] if app else []

    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_mapped(by_app_label))
    handler.on_update(pod(labels={"app": "x"}), pod(labels={"app": "y"}))
    handler.on_add(pod(labels={}))

    assert queue.added == [Request("ns", "x"), Request("ns", "y")]


def test_predicates_filter_before_mapping() -> None:
    queue = Queue()
    handler = EnqueueHandler(queue, enqueue_for_object(), [GenerationChanged])
    handler.on_update(pod("status-only", gen=3), pod("status-only", gen=3))
    handler.on_update(pod("spec", gen=3), pod("spec", gen=4))

    assert queue.added == [Request("ns", "spec")]
