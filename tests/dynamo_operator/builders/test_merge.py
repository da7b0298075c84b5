from __future__ import annotations

from dynamo_operator.builders.merge import copy_json, deep_merge, merge_env, merge_named


def test_deep_merge_merges_maps_and_replaces_lists() -> None:
    base = {"a": {"x": 1, "y": 2}, "args": ["--one"], "keep": True}
    override = {"a": {"y": 3, "z": 4}, "args": ["--two"]}
    assert deep_merge(base, override) == {
        "a": {"x": 1, "y": 3, "z": 4},
        "args": ["--two"],
        "keep": True,
    }


def test_deep_merge_output_never_aliases_its_inputs() -> None:
    base = {"nested": {"list": [1]}}
    override = {"other": {"list": [2]}}
    merged = deep_merge(base, override)
    merged["nested"]["list"].append(99)
    merged["other"]["list"].append(99)
    assert base == {"nested": {"list": [1]}}
    assert override == {"other": {"list": [2]}}


def test_merge_named_later_layer_wins_and_keeps_first_seen_order() -> None:
    merged = merge_named(
        [{"name": "http", "containerPort": 8000}, {"name": "system", "containerPort": 9090}],
        None,
        [{"name": "http", "containerPort": 8080}, {"name": "extra", "containerPort": 1}],
    )
    assert merged == [
        {"name": "http", "containerPort": 8080},
        {"name": "system", "containerPort": 9090},
        {"name": "extra", "containerPort": 1},
    ]


def test_merge_env_is_sorted_by_name_whatever_the_input_order() -> None:
    defaults = [{"name": "B", "value": "default"}, {"name": "A", "value": "a"}]
    user = [{"name": "C", "value": "c"}, {"name": "B", "value": "user"}]
    assert merge_env(defaults, user) == [
        {"name": "A", "value": "a"},
        {"name": "B", "value": "user"},
        {"name": "C", "value": "c"},
    ]


def test_copy_json_is_a_deep_copy() -> None:
    original = {"a": [{"b": 1}]}
    copied = copy_json(original)
    copied["a"][0]["b"] = 2
    assert original == {"a": [{"b": 1}]}
