"""The patch: diff then apply rebuilds the target; missing paths and failed guards are skipped."""

from __future__ import annotations

from typing import Any

from hypothesis import given

from dynamo_operator.conversion.patch import Path, apply, diff, get_at, is_absent
from tests.fixtures.documents import FUZZ, JSON_VALUES


def no_guard(path: Path) -> str:
    return ""


@FUZZ
@given(base=JSON_VALUES, target=JSON_VALUES)
def test_applying_the_diff_gives_the_target(base: Any, target: Any) -> None:
    assert apply(base, diff(base, target, no_guard), no_guard) == target


def test_lists_keyed_by_name_are_patched_by_name_and_reordered() -> None:
    base = [{"name": "a", "v": 1}, {"name": "b", "v": 2}]
    target = [{"name": "b", "v": 3}, {"name": "a", "v": 1}]
    ops = diff(base, target, no_guard)
    assert ops == [["o", [], ["b", "a"]], ["s", [["b"], "v"], 3, ""]]
    assert apply([{"name": "a", "v": 1}, {"name": "b", "v": 9}, {"name": "c"}], ops, no_guard) == [
        {"name": "b", "v": 3},
        {"name": "a", "v": 1},
        {"name": "c"},
    ]


def test_an_op_whose_guard_no_longer_matches_or_whose_parent_is_gone_is_skipped() -> None:
    ops = [["s", ["x", "y"], 1, "g1"], ["s", ["gone", "y"], 1, ""], ["d", ["z"], "g2"]]
    root = {"x": {}, "z": 1}
    assert apply(root, ops, lambda path: "g1") == {"x": {"y": 1}, "z": 1}
    assert apply({"x": {}, "z": 1}, ops, lambda path: "g2") == {"x": {}}


def test_malformed_ops_are_ignored() -> None:
    ops: Any = [5, [], ["s"], ["s", "not a path", 1], ["q", ["a"], 1], ["s", [["a", "b"]], 1]]
    assert apply({"a": 1}, ops, no_guard) == {"a": 1}
    assert apply({"a": 1}, "junk", no_guard) == {"a": 1}


def test_get_at_follows_keys_indexes_and_names() -> None:
    root = {"c": [{"name": "main", "env": [1, 2]}]}
    assert get_at(root, ["c", ["main"], "env", 1]) == 2
    assert is_absent(get_at(root, ["c", ["side"]]))
    assert is_absent(get_at(root, ["c", 5]))
