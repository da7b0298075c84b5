import copy
from typing import Any

import pytest

from manager.runtime.client import (
    find_difference,
    find_status_difference,
    needs_apply,
    prune_none,
    status_cleanup_patch,
    status_merge_patch,
    with_applied_digest,
)

DIGEST = "example.com/applied-digest"

DESIRED: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "ns", "labels": {"app": "web"}},
    "spec": {
        "replicas": 2,
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "image": "nginx:1",
                        "resources": {"limits": {"cpu": "1000m", "memory": "1Gi"}},
                        "ports": [{"name": "http", "containerPort": 8000}],
                    }
                ]
            }
        },
    },
}


def live_copy(**spec_overrides: Any) -> dict[str, Any]:
    """What the API server returns after applying DESIRED: defaults, status, server metadata."""
    container = {
        "name": "main",
        "image": "nginx:1",
        "imagePullPolicy": "IfNotPresent",
        "terminationMessagePath": "/dev/termination-log",
        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}},
        "ports": [{"name": "http", "containerPort": 8000, "protocol": "TCP"}],
    }
    spec = {
        "replicas": 2,
        "revisionHistoryLimit": 10,
        "template": {"spec": {"containers": [container], "restartPolicy": "Always"}},
        **spec_overrides,
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "ns",
            "uid": "1234",
            "resourceVersion": "99",
            "generation": 3,
            "labels": {"app": "web", "added-by-someone-else": "yes"},
        },
        "spec": spec,
        "status": {"replicas": 2},
    }


def test_an_applied_object_with_server_defaults_matches_its_intent() -> None:
    assert find_difference(DESIRED, live_copy()) is None
    assert not needs_apply(DESIRED, live_copy())


def test_a_missing_live_object_needs_an_apply() -> None:
    assert needs_apply(DESIRED, None)


def test_a_changed_field_we_set_is_reported_by_its_path() -> None:
    assert find_difference(DESIRED, live_copy(replicas=3)) == "spec.replicas"


def test_a_change_inside_a_list_element_is_reported_with_its_index() -> None:
    live = live_copy()
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"

    assert find_difference(DESIRED, live) == "spec.template.spec.containers[0].image"


def test_a_list_of_another_length_differs() -> None:
    live = live_copy()
    live["spec"]["template"]["spec"]["containers"].append({"name": "sidecar"})

    assert find_difference(DESIRED, live) == "spec.template.spec.containers"


@pytest.mark.parametrize(
    ("desired", "live", "equal"),
    [
        ("1000m", "1", True),
        ("0.5Gi", "512Mi", True),
        ("1e3", "1k", True),
        ("100m", "0.1", True),
        ("2", "1", False),
        ("web", "web2", False),
        (True, 1, False),
        (1, 1.0, True),
        (False, None, False),
    ],
)
def test_scalars_compare_by_value_and_json_type(desired: Any, live: Any, equal: bool) -> None:
    assert (find_difference({"f": desired}, {"f": live}) is None) is equal


def test_empty_collections_match_fields_the_server_dropped() -> None:
    assert find_difference({"spec": {"env": [], "selector": {}}}, {"spec": {}}) is None


def test_none_requires_the_field_to_be_absent() -> None:
    assert find_difference({"spec": {"paused": None}}, {"spec": {}}) is None
    assert find_difference({"spec": {"paused": None}}, {"spec": {"paused": True}}) == "spec.paused"


def test_a_type_change_between_map_list_and_scalar_differs() -> None:
    assert find_difference({"a": {"b": 1}}, {"a": "text"}) == "a"
    assert find_difference({"a": [1]}, {"a": {"0": 1}}) == "a"


def test_the_applied_digest_changes_when_the_controller_stops_setting_a_field() -> None:
    before = {"metadata": {"name": "web", "labels": {"app": "web", "tier": "front"}}}
    after = {"metadata": {"name": "web", "labels": {"app": "web"}}}
    live = with_applied_digest(before, DIGEST)  # what the server holds after applying `before`

    assert find_difference(after, live) is None, "a plain compare cannot see the removal"
    assert find_difference(with_applied_digest(after, DIGEST), live) == (
        f"metadata.annotations.{DIGEST}"
    )
    assert find_difference(with_applied_digest(before, DIGEST), live) is None


def test_the_applied_digest_ignores_key_order_and_leaves_its_input_alone() -> None:
    desired = {"spec": {"b": 1, "a": [1, 2]}, "metadata": {"annotations": {"keep": "me"}}}
    reordered = {"metadata": {"annotations": {"keep": "me"}}, "spec": {"a": [1, 2], "b": 1}}
    original = copy.deepcopy(desired)

    stamped = with_applied_digest(desired, "example.com/digest")

    assert desired == original
    assert stamped["metadata"]["annotations"]["keep"] == "me"
    assert stamped == with_applied_digest(reordered, "example.com/digest")


STATUS: dict[str, Any] = {
    "observedGeneration": 3,
    "state": "successful",
    "conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"},
    ],
    "services": {"frontend": {"replicas": 2, "memory": "1Gi"}},
}


def test_an_equal_status_is_no_difference_whatever_the_quantity_spelling() -> None:
    live = copy.deepcopy(STATUS)
    live["services"]["frontend"]["memory"] = "1024Mi"

    assert find_status_difference(STATUS, live) is None


def test_a_key_only_the_live_status_has_is_a_difference() -> None:
    live = copy.deepcopy(STATUS)
    live["services"]["frontend"]["ready"] = True
    live["message"] = "left over"

    assert find_status_difference(STATUS, live) in ("message", "services.frontend.ready")
    assert find_status_difference({**STATUS, "message": "left over"}, live) == (
        "services.frontend.ready"
    )


def test_a_missing_and_a_changed_status_key_are_differences() -> None:
    missing = {k: v for k, v in STATUS.items() if k != "state"}
    changed = {**STATUS, "conditions": [{**STATUS["conditions"][0], "status": "False"}]}

    assert find_status_difference(STATUS, missing) == "state"
    assert find_status_difference(STATUS, changed) == "conditions[0].status"
    assert find_status_difference(STATUS, None) == "observedGeneration"


def test_none_empty_and_absent_status_fields_are_all_the_same() -> None:
    assert find_status_difference({"a": None, "b": {}, "c": []}, {}) is None
    assert find_status_difference({}, {"a": None, "b": {}, "c": []}) is None
    assert find_status_difference({}, None) is None
    assert find_status_difference({"a": 1}, {"a": True}) == "a"


def test_the_cleanup_patch_removes_what_desired_lacks_and_nothing_else() -> None:
    live = copy.deepcopy(STATUS)
    live["message"] = "written by an earlier PUT"
    live["services"]["frontend"]["ready"] = True
    live["conditions"].append({"type": "Old", "status": "True"})
    desired = {**STATUS, "pending": "set by the apply, pruned by the server"}

    assert status_cleanup_patch(desired, live) == {
        "message": None,
        "services": {"frontend": {"ready": None}},
        "conditions": STATUS["conditions"],
    }
    assert status_cleanup_patch(STATUS, STATUS) == {}


def test_the_merge_patch_turns_live_into_desired_removals_included() -> None:
    live = copy.deepcopy(STATUS)
    live["message"] = "stale"
    live["services"]["frontend"]["ready"] = True
    desired = copy.deepcopy(STATUS)
    desired["state"] = "failed"
    desired["services"]["frontend"]["replicas"] = 3
    desired["services"]["planner"] = {"replicas": 1, "note": None}
    desired["conditions"] = []

    assert status_merge_patch(desired, live) == {
        "message": None,
        "state": "failed",
        "conditions": None,
        "services": {"frontend": {"ready": None, "replicas": 3}, "planner": {"replicas": 1}},
    }
    assert status_merge_patch(STATUS, STATUS) == {}


def test_prune_none_drops_absent_fields_at_any_depth() -> None:
    assert prune_none({"a": None, "b": {"c": None, "d": 1}, "e": [{"f": None}]}) == {
        "b": {"d": 1},
        "e": [{}],
    }
