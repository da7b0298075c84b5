from typing import Any

import pytest

from manager.runtime.cache import (
    Cache,
    CacheNotSyncedError,
    IndexNotFoundError,
    KindNotCachedError,
    LabelSelector,
)
from manager.runtime.client import WatchEvent
from manager.runtime.kinds import CONFIG_MAP, NAMESPACE, SECRET, ResourceKind

MODEL = ResourceKind("example.com/v1", "Model", "models", namespaced=True)


def obj(
    name: str,
    namespace: str | None = "ns",
    *,
    owners: tuple[str, ...] = (),
    labels: dict[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "resourceVersion": "1", "labels": labels or {}}
    if namespace is not None:
        metadata["namespace"] = namespace
    if owners:
        metadata["ownerReferences"] = [{"uid": uid, "name": uid, "kind": "X"} for uid in owners]
    return {"metadata": metadata, **extra}


def names(objects: list[dict[str, Any]]) -> list[str]:
    return [o["metadata"]["name"] for o in objects]


def cache_with(kind: ResourceKind, *objects: dict[str, Any], **options: Any) -> Cache:
    """A cache whose informer for `kind` has listed `objects` (no API server involved)."""
    cache = Cache(None, namespace=options.pop("namespace", None))
    cache.register(kind, **options).replace(list(objects), "1")
    return cache


def test_get_returns_the_cached_object_or_none() -> None:
    reader = cache_with(CONFIG_MAP, obj("a"), obj("a", "other")).reader

    found = reader.get(CONFIG_MAP, "ns", "a")
    assert found is not None
    assert found["metadata"]["namespace"] == "ns"
    assert reader.get(CONFIG_MAP, "ns", "missing") is None
    assert reader.get(CONFIG_MAP, "elsewhere", "a") is None


def test_reads_are_the_cached_objects_themselves_not_copies() -> None:
    cache = cache_with(CONFIG_MAP, obj("a"))

    assert cache.reader.get(CONFIG_MAP, "ns", "a") is cache.get_informer(CONFIG_MAP).store.get(
        "ns", "a"
    )


def test_cluster_scoped_kinds_ignore_the_namespace() -> None:
    reader = cache_with(NAMESPACE, obj("team-a", None), obj("team-b", None)).reader

    assert reader.get(NAMESPACE, None, "team-a") is not None
    assert reader.get(NAMESPACE, "whatever", "team-a") is not None
    assert names(reader.list(NAMESPACE, "whatever")) == ["team-a", "team-b"]


def test_children_are_listed_by_owner_uid_within_the_namespace_and_labels() -> None:
    reader = cache_with(
        CONFIG_MAP,
        obj("c2", owners=("u1",), labels={"tier": "front"}),
        obj("c1", owners=("u1", "u2"), labels={"tier": "back"}),
        obj("c3", owners=("u2",)),
        obj("c4", "other", owners=("u1",)),
        obj("orphan"),
    ).reader

    assert names(reader.list(CONFIG_MAP, "ns", owner_uid="u1")) == ["c1", "c2"]
    assert names(reader.list(CONFIG_MAP, owner_uid="u1")) == ["c1", "c2", "c4"]
    assert names(reader.list(CONFIG_MAP, "ns", owner_uid="u1", labels="tier=front")) == ["c2"]
    assert names(reader.list(CONFIG_MAP, "ns", owner_uid="nobody")) == []


def test_list_filters_by_namespace_and_any_label_selector_form_and_sorts() -> None:
    reader = cache_with(
        CONFIG_MAP,
        obj("b", labels={"app": "web", "tier": "front"}),
        obj("a", labels={"app": "web", "tier": "back"}),
        obj("c", "other", labels={"app": "web"}),
        obj("d", labels={"app": "db"}),
    ).reader

    assert names(reader.list(CONFIG_MAP)) == ["a", "b", "d", "c"]  # by namespace, then name
    assert names(reader.list(CONFIG_MAP, "ns", labels={"app": "web"})) == ["a", "b"]
    assert names(reader.list(CONFIG_MAP, "ns", labels="app=web,tier!=back")) == ["b"]
    assert names(reader.list(CONFIG_MAP, labels=LabelSelector.parse("app in (web)"))) == [
        "a",
        "b",
        "c",
    ]


def test_custom_indexes_answer_by_index() -> None:
    def base_model_hash(o: dict[str, Any]) -> list[str]:
        return [o["spec"]["hash"]]

    reader = cache_with(
        MODEL,
        obj("m2", spec={"hash": "h1"}),
        obj("m1", spec={"hash": "h1"}),
        obj("m3", "other", spec={"hash": "h2"}),
        indexers={"baseModelHash": base_model_hash},
    ).reader

    assert names(reader.by_index(MODEL, "baseModelHash", "h1")) == ["m1", "m2"]
    assert names(reader.by_index(MODEL, "baseModelHash", "h3")) == []
    with pytest.raises(IndexNotFoundError, match="register it"):
        reader.by_index(MODEL, "nope", "h1")


def test_reading_a_kind_nobody_caches_fails_at_once_naming_it() -> None:
    reader = cache_with(CONFIG_MAP, obj("a")).reader

    with pytest.raises(KindNotCachedError, match=r"Secret\.v1 is not cached: watch it .* register"):
        reader.get(SECRET, "ns", "a")
    with pytest.raises(KindNotCachedError):
        reader.list(SECRET, "ns")


def test_reading_before_the_first_list_raises_not_synced() -> None:
    cache = Cache(None)
    cache.get_informer(CONFIG_MAP)

    assert not cache.reader.has_synced(CONFIG_MAP)
    with pytest.raises(CacheNotSyncedError, match="ConfigMap"):
        cache.reader.get(CONFIG_MAP, "ns", "a")


def test_a_namespace_outside_a_restricted_cache_is_not_cached() -> None:
    reader = cache_with(CONFIG_MAP, obj("a", "team-a"), namespace="team-a").reader

    assert names(reader.list(CONFIG_MAP)) == ["a"]
    assert reader.get(CONFIG_MAP, "team-a", "a") is not None
    with pytest.raises(KindNotCachedError, match="sees namespace 'team-a' only"):
        reader.get(CONFIG_MAP, "team-b", "a")


def test_the_cache_is_up_to_date_with_a_write_once_it_has_seen_its_version() -> None:
    """An object the cache lacks is deleted only if the cache is past the version written:
    before that, the cache has not caught up with the write."""
    cache = Cache(None)
    informer = cache.register(CONFIG_MAP)
    assert not cache.reader.has_seen(CONFIG_MAP, "5")  # not listed yet
    informer.replace([obj("a")], "4")

    assert cache.reader.has_seen(CONFIG_MAP, "4")
    assert not cache.reader.has_seen(CONFIG_MAP, "5")
    newer = obj("b")
    newer["metadata"]["resourceVersion"] = "12"
    informer.apply(WatchEvent("ADDED", newer))
    assert cache.reader.has_seen(CONFIG_MAP, "5")
    assert not cache.reader.has_seen(CONFIG_MAP, "13")
    assert not cache.reader.has_seen(CONFIG_MAP, None)
    assert not cache.reader.has_seen(CONFIG_MAP, "not-a-number")
