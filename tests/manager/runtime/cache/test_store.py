import json
import tracemalloc
from typing import Any

import pytest

from manager.runtime.cache import LABEL_INDEX, NAMESPACE_INDEX, OWNER_UID_INDEX, Store


def cm(
    name: str,
    namespace: str = "default",
    rv: str = "1",
    labels: dict[str, str] | None = None,
    owners: tuple[str, ...] = (),
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "resourceVersion": rv}
    if labels:
        metadata["labels"] = labels
    if owners:
        metadata["ownerReferences"] = [{"uid": uid, "name": f"o-{uid}"} for uid in owners]
    return {"metadata": metadata}


@pytest.fixture(params=[False, True], ids=["dicts", "packed"])
def store(request: pytest.FixtureRequest) -> Store:
    """Every behaviour holds for a store of dicts and for one of JSON text alike."""
    return Store(packed=request.param)


def names(objects: list[dict[str, Any]]) -> list[str]:
    return sorted(o["metadata"]["name"] for o in objects)


def test_get_finds_an_object_by_namespace_and_name(store: Store) -> None:
    store.upsert(cm("a", "ns1"))
    store.upsert(cm("a", "ns2", rv="7"))

    found = store.get("ns2", "a")
    assert found is not None
    assert found["metadata"]["resourceVersion"] == "7"
    assert store.get("ns3", "a") is None


def test_cluster_scoped_objects_are_found_with_or_without_an_empty_namespace(store: Store) -> None:
    store.upsert({"metadata": {"name": "node-1", "resourceVersion": "1"}})

    assert store.get(None, "node-1") is not None
    assert store.get("", "node-1") is not None


def test_list_filters_by_namespace_and_label_selector(store: Store) -> None:
    store.upsert(cm("a", "ns1", labels={"app": "web", "tier": "front"}))
    store.upsert(cm("b", "ns1", labels={"app": "db"}))
    store.upsert(cm("c", "ns2", labels={"app": "web"}))

    assert names(store.list()) == ["a", "b", "c"]
    assert names(store.list("ns1")) == ["a", "b"]
    assert names(store.list(label_selector="app=web")) == ["a", "c"]
    assert names(store.list("ns1", label_selector={"app": "web"})) == ["a"]
    assert names(store.list(label_selector="app in (web,db),tier!=front")) == ["b", "c"]
    assert names(store.list(label_selector="!tier")) == ["b", "c"]


def test_indexes_follow_updates_and_removals(store: Store) -> None:
    store.upsert(cm("a", owners=("uid-1",), labels={"app": "x"}))
    store.upsert(cm("b", owners=("uid-1", "uid-2")))

    assert names(store.by_index(OWNER_UID_INDEX, "uid-1")) == ["a", "b"]
    assert names(store.by_index(LABEL_INDEX, "app=x")) == ["a"]

    store.upsert(cm("a", rv="2", owners=("uid-2",), labels={"app": "y"}))
    assert names(store.by_index(OWNER_UID_INDEX, "uid-1")) == ["b"]
    assert names(store.by_index(OWNER_UID_INDEX, "uid-2")) == ["a", "b"]
    assert store.by_index(LABEL_INDEX, "app=x") == []
    assert names(store.list(label_selector="app=y")) == ["a"]

    store.remove(("default", "b"))
    assert store.by_index(OWNER_UID_INDEX, "uid-1") == []
    assert "uid-1" not in store.index_values(OWNER_UID_INDEX)
    assert names(store.by_index(NAMESPACE_INDEX, "default")) == ["a"]


def test_a_custom_index_covers_objects_stored_before_it_was_added(store: Store) -> None:
    store.upsert({"metadata": {"name": "a", "namespace": "n"}, "spec": {"node": "n1"}})
    store.add_indexer("node", lambda o: [o["spec"]["node"]])
    store.upsert({"metadata": {"name": "b", "namespace": "n"}, "spec": {"node": "n1"}})

    assert names(store.by_index("node", "n1")) == ["a", "b"]
    with pytest.raises(ValueError, match="already exists"):
        store.add_indexer("node", lambda o: [])


def test_replace_reports_exactly_what_changed_since_the_last_state(store: Store) -> None:
    store.replace([cm("same"), cm("changed"), cm("deleted")])

    deltas = store.replace([cm("same"), cm("changed", rv="2"), cm("new", rv="3")])

    summary = sorted((d.type, d.object["metadata"]["name"]) for d in deltas)
    assert summary == [("added", "new"), ("deleted", "deleted"), ("updated", "changed")]
    updated = next(d for d in deltas if d.type == "updated")
    assert updated.old is not None
    assert updated.old["metadata"]["resourceVersion"] == "1"
    assert names(store.list()) == ["changed", "new", "same"]
    assert store.by_index(NAMESPACE_INDEX, "default") != []


def test_replace_with_nothing_deletes_everything(store: Store) -> None:
    store.replace([cm("a"), cm("b")])

    deltas = store.replace([])

    assert sorted(d.object["metadata"]["name"] for d in deltas) == ["a", "b"]
    assert all(d.type == "deleted" for d in deltas)
    assert len(store) == 0
    assert store.index_values(NAMESPACE_INDEX) == []


def test_a_label_key_is_indexed_once_asked_for_over_objects_stored_before(store: Store) -> None:
    store.upsert(cm("a", labels={"app": "x", "tier": "front"}))
    assert store.index_values(LABEL_INDEX) == []  # no reader asked: no label kept twice

    assert names(store.list(label_selector="app=x")) == ["a"]
    store.upsert(cm("b", labels={"app": "x"}))
    store.upsert(cm("a", rv="2", labels={"app": "y", "tier": "front"}))

    assert names(store.by_index(LABEL_INDEX, "app=x")) == ["b"]
    assert sorted(store.index_values(LABEL_INDEX)) == ["app=x", "app=y"]
    assert names(store.by_index(LABEL_INDEX, "tier=front")) == ["a"]


def test_a_packed_store_hands_out_copies_that_readers_cannot_change_it_through() -> None:
    store = Store(packed=True)
    store.upsert(cm("a", labels={"app": "x"}))

    read = store.get("default", "a")
    assert read is not None
    read["metadata"]["labels"]["app"] = "changed"

    assert store.get("default", "a") == cm("a", labels={"app": "x"})
    assert names(store.list("default", {"app": "x"})) == ["a"]


def test_a_packed_store_keeps_each_object_in_about_its_json_size() -> None:
    # What packing is for: thousands of cached Deployments and Pods at a few KiB each.
    objects = [cm(f"deployment-{i}", labels={"spec": "x" * 3000 + str(i)}) for i in range(200)]
    json_bytes = sum(len(json.dumps(o, separators=(",", ":"))) for o in objects)
    store = Store(packed=True)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for obj in objects:
            store.upsert(obj)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 1.5 * json_bytes


def test_the_stored_resource_version_is_known_without_the_object(store: Store) -> None:
    store.upsert(cm("a", rv="7"))

    assert store.resource_version(("default", "a")) == "7"
    assert store.resource_version(("default", "missing")) is None
