from __future__ import annotations

from e2e.support.chaos import specs


def test_a_run_of_twenty_graphs_has_each_special_kind() -> None:
    graphs = [specs.initial_graph(index, "ns") for index in range(20)]
    services = [graph["spec"]["services"] for graph in graphs]
    assert sum("multinode" in s["Decode"] for s in services) == 2
    assert sum("modelRef" in s["Worker"] for s in services) == 5
    assert sum("pvcs" in graph["spec"] for graph in graphs) == 4
    assert {graph["metadata"]["namespace"] for graph in graphs} == {"ns"}


def test_an_env_edit_sets_the_edit_variable() -> None:
    graph = specs.initial_graph(0, "ns")
    kind, after = specs.edited(graph, "env", 42)
    assert kind == "env"
    assert {"name": specs.EDIT_ENV, "value": "42"} in after["spec"]["envs"]
    assert graph["spec"]["envs"] == [{"name": "HF_HOME", "value": "/models/hf"}], "input kept"


def test_a_replica_edit_toggles_one_service_between_one_and_two() -> None:
    graph = specs.initial_graph(0, "ns")
    _, once = specs.edited(graph, "replicas", 1)
    _, twice = specs.edited(once, "replicas", 1)
    replicas = lambda g: {n: s["replicas"] for n, s in g["spec"]["services"].items()}  # noqa: E731
    assert sorted(replicas(once).values()) == [1, 1, 1, 2]
    assert replicas(twice) == replicas(graph)


def test_removing_keeps_the_frontend_and_two_services_then_adds_instead() -> None:
    graph = specs.initial_graph(0, "ns")
    for value in range(2):
        kind, graph = specs.edited(graph, "service_removed", value)
        assert kind == "service_removed"
    assert len(graph["spec"]["services"]) == 2
    assert "Frontend" in graph["spec"]["services"]
    kind, graph = specs.edited(graph, "service_removed", 5)
    assert kind == "service_added"
    assert "Extra5" in graph["spec"]["services"]


def test_the_merge_patch_removes_with_null_and_sets_what_changed() -> None:
    before = specs.initial_graph(0, "ns")
    _, after = specs.edited(before, "service_removed", 0)
    _, after = specs.edited(after, "env", 3)
    patch = specs.merge_patch(before, after)
    removed = next(
        name for name in before["spec"]["services"] if name not in after["spec"]["services"]
    )
    assert patch["spec"]["services"] == {removed: None}
    assert patch["spec"]["envs"] == after["spec"]["envs"]
    assert specs.merge_patch(after, after) == {"spec": {}}
