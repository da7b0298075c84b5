from __future__ import annotations

import copy
from typing import Any

from dynamo_operator.settings import OperatorSettings
from e2e.support.chaos import specs
from e2e.support.chaos.expected import Key, audit, expected_children

SETTINGS = OperatorSettings(available_apis=frozenset({"lws"}))
NAMESPACE = "ns"


def world(
    indexes: list[int],
) -> tuple[dict[Key, dict[str, Any]], list[dict[str, Any]], dict[Key, str]]:
    """What the builders expect for the graphs, and a cluster that holds exactly that (every
    object with a uid, every owner reference pointing at it)."""
    graphs = [specs.initial_graph(index, NAMESPACE) for index in indexes]
    expected = expected_children(NAMESPACE, [*graphs, specs.base_model(NAMESPACE)], SETTINGS)
    uids: dict[Key, str] = {
        ("DynamoGraphDeployment", g["metadata"]["name"]): f"uid-{g['metadata']['name']}"
        for g in graphs
    }
    uids.update({key: f"uid-{key[0]}-{key[1]}" for key in expected})
    actual = []
    for _key, obj in expected.items():
        live = copy.deepcopy(obj)
        for owner in live["metadata"].get("ownerReferences") or ():
            owner["uid"] = uids[(owner["kind"], owner["name"])]
        actual.append(live)
    return expected, actual, uids


def test_a_cluster_holding_exactly_what_the_builders_say_is_clean() -> None:
    expected, actual, uids = world([0, 1, 2, 3])
    kinds = {kind for kind, _ in expected}
    assert {"LeaderWorkerSet", "PersistentVolumeClaim", "Deployment", "Service"} <= kinds
    assert audit(NAMESPACE, expected, actual, uids).is_clean()


def test_a_missing_child_is_missing() -> None:
    expected, actual, uids = world([0])
    actual = [
        obj
        for obj in actual
        if obj["kind"] != "Deployment" or obj["metadata"]["name"] != "g-0000-worker"
    ]
    assert audit(NAMESPACE, expected, actual, uids).missing == [
        f"{NAMESPACE}/Deployment/g-0000-worker"
    ]


def test_a_child_of_a_live_owner_that_should_not_exist_is_a_duplicate() -> None:
    expected, actual, uids = world([0])
    extra = copy.deepcopy(next(o for o in actual if o["kind"] == "DynamoComponentDeployment"))
    extra["metadata"]["name"] = "g-0000-removed"
    findings = audit(NAMESPACE, expected, [*actual, extra], uids)
    assert findings.duplicates == [f"{NAMESPACE}/DynamoComponentDeployment/g-0000-removed"]
    assert findings.orphans == []


def test_a_child_of_a_previous_incarnation_is_an_orphan() -> None:
    expected, actual, uids = world([0])
    uids[("DynamoGraphDeployment", "g-0000")] = "uid-recreated"
    findings = audit(NAMESPACE, expected, actual, uids)
    # The graph's components; the namespace's discovery account is no graph's.
    assert len(findings.orphans) == len(
        [o for o in actual if o["kind"] == "DynamoComponentDeployment"]
    )
    assert all("owner gone: DynamoGraphDeployment/g-0000" in o for o in findings.orphans)


def test_a_child_missing_the_last_edit_is_stale() -> None:
    graph = specs.initial_graph(0, NAMESPACE)
    expected, actual, uids = world([0])
    _, edited = specs.edited(graph, "env", 9)
    expected = expected_children(NAMESPACE, [edited, specs.base_model(NAMESPACE)], SETTINGS)
    stale = audit(NAMESPACE, expected, actual, uids).stale
    assert stale
    assert all("CHAOS_EDIT" in entry or "env" in entry or "annotations" in entry for entry in stale)


def test_what_kubernetes_makes_itself_is_not_counted() -> None:
    expected, actual, uids = world([0])
    default = {"kind": "ServiceAccount", "metadata": {"name": "default"}}
    pod = {"kind": "Pod", "metadata": {"name": "g-0000-worker-abc"}}
    assert audit(NAMESPACE, expected, [*actual, default, pod], uids).is_clean()


def test_what_another_controller_owns_is_its_business() -> None:
    expected, actual, uids = world([3])
    group_service = {
        "kind": "Service",
        "metadata": {
            "name": "g-0003-decode-0",
            "ownerReferences": [{"kind": "LeaderWorkerSet", "name": "g-0003-decode-0", "uid": "x"}],
        },
    }
    assert audit(NAMESPACE, expected, [*actual, group_service], uids).is_clean()
