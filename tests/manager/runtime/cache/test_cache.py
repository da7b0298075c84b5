from typing import Any

import pytest

from manager.runtime.cache import Cache, CacheOptionsConflictError
from manager.runtime.client.rest import WatchEvent
from manager.runtime.kinds import CONFIG_MAP, NAMESPACE, SECRET

DOCKER_CONFIG = "type=kubernetes.io/dockerconfigjson"


def by_name(o: dict[str, Any]) -> list[str]:
    return [o["metadata"]["name"]]


def test_one_informer_per_kind_shared_by_watches_and_registration() -> None:
    cache = Cache(None, namespace="team-a")

    registered = cache.register(SECRET, field_selector=DOCKER_CONFIG)

    assert cache.get_informer(SECRET) is registered
    assert cache.find_informer(SECRET) is registered
    assert cache.get_informer(CONFIG_MAP) is cache.get_informer(CONFIG_MAP)
    assert registered.namespace == "team-a"
    assert cache.get_informer(NAMESPACE).namespace is None  # cluster-scoped: cluster-wide
    assert cache.find_informer(NAMESPACE) is not None
    assert len(cache.informers) == 3


def test_the_registered_selectors_reach_the_reflector() -> None:
    cache = Cache(None)
    informer = cache.register(SECRET, label_selector="a=b", field_selector=DOCKER_CONFIG)

    options = cache.options(SECRET)
    assert options is not None
    assert (options.label_selector, options.field_selector) == ("a=b", DOCKER_CONFIG)
    assert informer._reflector_options["field_selector"] == DOCKER_CONFIG
    assert informer._reflector_options["label_selector"] == "a=b"


def test_find_informer_never_creates_one() -> None:
    cache = Cache(None)

    assert cache.find_informer(SECRET) is None
    assert cache.informers == []


def test_registering_the_same_options_again_is_harmless() -> None:
    cache = Cache(None)
    first = cache.register(SECRET, field_selector=DOCKER_CONFIG, indexers={"name": by_name})

    again = cache.register(SECRET, field_selector=DOCKER_CONFIG, indexers={"name": by_name})

    assert again is first


def test_conflicting_selectors_are_refused_naming_the_kind() -> None:
    cache = Cache(None)
    cache.register(SECRET, field_selector=DOCKER_CONFIG)

    with pytest.raises(CacheOptionsConflictError, match=r"Secret\.v1 is already cached with"):
        cache.register(SECRET, label_selector="app=web")


def test_a_kind_watched_unfiltered_cannot_be_filtered_afterwards() -> None:
    cache = Cache(None)
    cache.get_informer(SECRET)  # a controller's owns(SECRET), built before the registration

    with pytest.raises(CacheOptionsConflictError, match="before building the controllers"):
        cache.register(SECRET, field_selector=DOCKER_CONFIG)


def test_indexes_can_be_added_to_a_kind_but_a_name_binds_one_function() -> None:
    cache = Cache(None)
    informer = cache.get_informer(CONFIG_MAP)
    informer.replace([{"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "1"}}], "1")

    cache.register(CONFIG_MAP, indexers={"name": by_name})

    assert [o["metadata"]["name"] for o in cache.reader.by_index(CONFIG_MAP, "name", "a")] == ["a"]
    with pytest.raises(CacheOptionsConflictError, match="another function"):
        cache.register(CONFIG_MAP, indexers={"name": lambda o: []})


def test_built_in_index_names_are_reserved() -> None:
    with pytest.raises(CacheOptionsConflictError, match="built in"):
        Cache(None).register(CONFIG_MAP, indexers={"owner_uid": by_name})


def without_data(obj: dict[str, Any]) -> dict[str, Any]:
    obj.pop("data", None)
    return obj


def test_a_registered_transform_trims_what_every_reader_gets() -> None:
    cache = Cache(None)
    informer = cache.register(CONFIG_MAP, transform=without_data)
    listed = {"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "1"}, "data": {}}
    watched = {"metadata": {"name": "b", "namespace": "ns", "resourceVersion": "2"}, "data": {}}

    informer.replace([listed], "1")
    informer.apply(WatchEvent("ADDED", watched))

    assert [sorted(o) for o in informer.store.list()] == [["apiVersion", "kind", "metadata"]] * 2
    assert cache.register(CONFIG_MAP) is informer, "no transform named: the registered one stays"
    with pytest.raises(CacheOptionsConflictError, match="another transform"):
        cache.register(CONFIG_MAP, transform=lambda obj: obj)


def test_a_kind_registered_packed_stays_packed_and_cannot_become_so_later() -> None:
    cache = Cache(None)
    informer = cache.register(CONFIG_MAP, packed=True)
    first = {"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "1"}, "data": {}}
    informer.replace([], "1")
    informer.apply(WatchEvent("ADDED", first))
    read = cache.reader.get(CONFIG_MAP, "ns", "a")
    assert read is not None
    read["data"]["changed"] = "by a reader"

    assert cache.register(CONFIG_MAP) is informer
    assert cache.reader.get(CONFIG_MAP, "ns", "a") == {
        **first,
        "apiVersion": "v1",
        "kind": "ConfigMap",
    }, "a reader's change to its copy reached the cache"
    cache.get_informer(SECRET)
    with pytest.raises(CacheOptionsConflictError, match="already cached unpacked"):
        cache.register(SECRET, packed=True)
