"""The informer's bookkeeping between what the reflector reads and what handlers see.

The reflector's I/O is exercised against a real API server in `e2e/test_cache_*.py`; here the
informer is fed lists and watch events directly, as the reflector would.
"""

from typing import Any

from manager.runtime.cache import Informer
from manager.runtime.client import WatchEvent
from manager.runtime.kinds import CONFIG_MAP


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, ...]] = []

    def on_add(self, obj: dict[str, Any], is_in_initial_list: bool) -> None:
        self.events.append(("add", obj["metadata"]["name"], str(is_in_initial_list)))

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        rvs = f"{old['metadata']['resourceVersion']}->{new['metadata']['resourceVersion']}"
        self.events.append(("update", new["metadata"]["name"], rvs))

    def on_delete(self, obj: dict[str, Any]) -> None:
        self.events.append(("delete", obj["metadata"]["name"]))


def cm(name: str, rv: str) -> dict[str, Any]:
    return {
        "metadata": {
            "name": name,
            "namespace": "ns",
            "resourceVersion": rv,
            "managedFields": [
                {
                    "manager": "kubectl",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": "2026-12-07T00:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:data": {"f:k": {}}},
                },
                {"manager": "ctl", "operation": "Update", "subresource": "status", "fieldsV1": {}},
            ],
        },
        "data": {"k": rv},
    }


def informer_with_recorder() -> tuple[Informer, Recorder]:
    informer = Informer(None, CONFIG_MAP, "ns")
    recorder = Recorder()
    informer.add_event_handler(recorder)
    return informer, recorder


def test_the_first_list_is_delivered_as_initial_adds_and_marks_the_informer_synced() -> None:
    informer, recorder = informer_with_recorder()
    assert not informer.has_synced

    informer.replace([cm("a", "1"), cm("b", "2")], "2")

    assert informer.has_synced
    assert sorted(recorder.events) == [("add", "a", "True"), ("add", "b", "True")]


def test_cached_objects_keep_who_manages_them_not_which_fields_and_gain_their_kind() -> None:
    informer, _ = informer_with_recorder()
    informer.replace([cm("a", "1")], "1")

    cached = informer.store.get("ns", "a")

    assert cached is not None
    assert cached["metadata"]["managedFields"] == [
        {"manager": "kubectl", "operation": "Update"},
        {"manager": "ctl", "operation": "Update", "subresource": "status"},
    ]
    assert (cached["apiVersion"], cached["kind"]) == ("v1", "ConfigMap")


def test_equal_strings_of_objects_decoded_apart_are_kept_once() -> None:
    informer, _ = informer_with_recorder()
    first, second = cm("a", "1"), cm("b", "2")
    first["data"] = {"image": "".join(["vllm-", "runtime"])}
    second["data"] = {"image": "".join(["vllm-", "runtime"])}
    assert first["data"]["image"] is not second["data"]["image"]

    informer.replace([first, second], "2")

    cached = [informer.store.get("ns", name) for name in ("a", "b")]
    assert cached[0] is not None
    assert cached[1] is not None
    assert cached[0]["data"]["image"] is cached[1]["data"]["image"] == "vllm-runtime"


def test_a_list_arrives_page_by_page_and_deletes_only_once_it_is_complete() -> None:
    informer, recorder = informer_with_recorder()
    informer.replace([cm("kept", "1"), cm("changed", "2"), cm("deleted", "3")], "3")
    recorder.events.clear()

    listing = informer.begin_list()
    listing.add([cm("kept", "1"), cm("changed", "5")])
    after_first_page = list(recorder.events)
    listing.add([cm("created", "6")])
    before_finish = list(recorder.events)
    listing.finish("7")

    assert after_first_page == [("update", "changed", "2->5")]
    assert before_finish == [*after_first_page, ("add", "created", "False")]
    assert recorder.events == [*before_finish, ("delete", "deleted")]


def test_the_first_list_syncs_the_informer_only_with_its_last_page() -> None:
    informer, recorder = informer_with_recorder()
    listing = informer.begin_list()

    listing.add([cm("a", "1")])
    synced_after_a_page = informer.has_synced
    listing.finish("1")

    assert not synced_after_a_page
    assert informer.has_synced
    assert recorder.events == [("add", "a", "True")]


def test_a_list_started_again_removes_what_only_the_abandoned_one_held() -> None:
    informer, recorder = informer_with_recorder()
    abandoned = informer.begin_list()  # its continue token expired after one page
    abandoned.add([cm("a", "1"), cm("gone-since", "2")])

    again = informer.begin_list()
    again.add([cm("a", "1")])
    again.finish("3")

    assert recorder.events == [
        ("add", "a", "True"),
        ("add", "gone-since", "True"),
        ("delete", "gone-since"),
    ]
    assert [o["metadata"]["name"] for o in informer.store.list()] == ["a"]


def test_watch_events_become_adds_updates_and_deletes() -> None:
    informer, recorder = informer_with_recorder()
    informer.replace([cm("a", "1")], "1")
    recorder.events.clear()

    informer.apply(WatchEvent("ADDED", cm("b", "2")))
    informer.apply(WatchEvent("MODIFIED", cm("a", "3")))
    informer.apply(WatchEvent("DELETED", cm("b", "4")))

    assert recorder.events == [("add", "b", "False"), ("update", "a", "1->3"), ("delete", "b")]
    assert [o["metadata"]["name"] for o in informer.store.list()] == ["a"]


def test_a_redelivered_version_and_a_delete_of_an_unknown_object_are_not_passed_on() -> None:
    informer, recorder = informer_with_recorder()
    informer.replace([cm("a", "1")], "1")
    recorder.events.clear()

    informer.apply(WatchEvent("MODIFIED", cm("a", "1")))
    informer.apply(WatchEvent("DELETED", cm("never-seen", "5")))

    assert recorder.events == []


def test_a_relist_after_a_gap_replays_only_the_missed_changes() -> None:
    informer, recorder = informer_with_recorder()
    informer.replace([cm("kept", "1"), cm("changed", "2"), cm("deleted", "3")], "3")
    recorder.events.clear()

    informer.replace([cm("kept", "1"), cm("changed", "5"), cm("created", "6")], "7")

    assert sorted(recorder.events) == [
        ("add", "created", "False"),
        ("delete", "deleted"),
        ("update", "changed", "2->5"),
    ]


def test_a_handler_added_after_sync_gets_the_cached_objects_as_initial_adds() -> None:
    informer, _ = informer_with_recorder()
    informer.replace([cm("a", "1"), cm("b", "1")], "1")

    late = Recorder()
    informer.add_event_handler(late)

    assert sorted(late.events) == [("add", "a", "True"), ("add", "b", "True")]


def test_a_failing_handler_does_not_stop_the_others() -> None:
    informer = Informer(None, CONFIG_MAP, "ns")

    class Broken(Recorder):
        def on_add(self, obj: dict[str, Any], is_in_initial_list: bool) -> None:
            raise RuntimeError("bug in a handler")

    recorder = Recorder()
    informer.add_event_handler(Broken())
    informer.add_event_handler(recorder)

    informer.replace([cm("a", "1")], "1")
    informer.apply(WatchEvent("ADDED", cm("b", "2")))

    assert recorder.events == [("add", "a", "True"), ("add", "b", "False")]
