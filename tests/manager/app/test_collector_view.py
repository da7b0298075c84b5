"""`CollectorView`: a new graph's children wait until the garbage collector's v1beta1 stream
shows the graph, never on a stream that is not there or has stopped (`STALL`), and never longer
than `LONGEST`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from manager.app.collector_view import LONGEST, STALL, CollectorView
from manager.app.kinds import COMPONENT, GRAPH
from manager.runtime.client import WatchEvent
from manager.runtime.controller import Request

START = datetime(2026, 12, 6, 12, 0, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def graph(name: str = "g", uid: str = "uid-1") -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {
            "name": name,
            "namespace": "ns",
            "uid": uid,
            "resourceVersion": "5",
        },
        "spec": {"services": {}},
    }


def sighting(obj: dict[str, Any]) -> WatchEvent:
    return WatchEvent("ADDED", {**obj, "apiVersion": "nvidia.com/v1beta1"})


def view_of_graphs() -> tuple[CollectorView, Any, list[Request], Clock]:
    clock = Clock()
    view = CollectorView(None, None, clock)
    queued: list[Request] = []
    informer = view.follow(GRAPH, queued.append)
    return view, informer, queued, clock


def at(clock: Clock, seconds: float) -> None:
    clock.now = START + timedelta(seconds=seconds)


def test_a_new_graph_waits_until_the_collector_sees_it_and_its_sighting_queues_it() -> None:
    view, informer, queued, _ = view_of_graphs()
    informer.replace([], "1")
    assert view.holds(GRAPH, graph())
    assert view.waiting()
    informer.apply(sighting(graph()))
    assert queued == [Request("ns", "g")]
    assert not view.waiting()
    assert not view.holds(GRAPH, graph())


def test_a_sighting_of_an_object_that_never_waited_queues_nothing() -> None:
    _, informer, queued, _ = view_of_graphs()
    informer.replace([], "1")
    informer.apply(sighting(graph()))
    assert queued == []


def test_the_sighting_must_be_the_same_object_not_an_older_one_of_that_name() -> None:
    view, informer, _, _ = view_of_graphs()
    informer.replace([sighting(graph(uid="old")).object], "1")
    assert view.holds(GRAPH, graph(uid="new"))


def test_nothing_waits_on_a_stream_that_has_not_listed_the_webhook_may_be_down() -> None:
    view, _, _, _ = view_of_graphs()
    assert not view.holds(GRAPH, graph())
    assert not view.waiting()


def test_an_object_waits_while_the_stream_moves_and_is_queued_once_it_stalls() -> None:
    view, informer, queued, clock = view_of_graphs()
    informer.replace([], "1")
    assert view.holds(GRAPH, graph())
    at(clock, 8)
    informer.apply(sighting(graph(name="other", uid="uid-2")))  # lagging, but moving
    at(clock, 8 + STALL - 1)
    view.expire()
    assert view.holds(GRAPH, graph())
    assert queued == []
    at(clock, 8 + STALL)
    view.expire()
    assert queued == [Request("ns", "g")], "a stream that stopped may be broken: go on"
    assert not view.waiting()
    assert not view.holds(GRAPH, graph())


def test_nothing_waits_longer_than_the_longest_however_the_stream_moves() -> None:
    view, informer, queued, clock = view_of_graphs()
    informer.replace([], "1")
    assert view.holds(GRAPH, graph())
    for second in range(1, int(LONGEST) + 1):
        at(clock, second)
        informer.apply(sighting(graph(name=f"other-{second}", uid=f"uid-{second}")))
        view.expire()
    assert queued == [Request("ns", "g")]
    assert not view.holds(GRAPH, graph())


def test_a_kind_it_does_not_follow_never_waits() -> None:
    view, informer, _, _ = view_of_graphs()
    informer.replace([], "1")
    component = {**graph(), "kind": "DynamoComponentDeployment"}
    assert not view.holds(COMPONENT, component)


def test_a_sighting_keeps_only_who_the_object_is() -> None:
    _, informer, _, _ = view_of_graphs()
    informer.replace([sighting(graph()).object], "1")
    kept = informer.store.get("ns", "g")
    assert kept is not None
    assert "spec" not in kept
    assert kept["metadata"]["uid"] == "uid-1"
