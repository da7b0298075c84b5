"""Wire checks: JSON only, bounded depth; equality that tells true from 1."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamo_operator.conversion.errors import ConversionError
from dynamo_operator.conversion.wire import check_json, digest, same
from dynamo_operator.field_paths import MAX_NESTING_DEPTH
from tests.fixtures.documents import nested

LEAVES = st.none() | st.booleans() | st.integers() | st.text(max_size=3) | st.floats()
KEYS = st.text(max_size=2) | st.integers(0, 3) | st.booleans()
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)


def test_plain_json_passes_and_the_first_bad_part_is_named() -> None:
    check_json({"a": [1, 2.5, None, True, "x", {"b": []}]})
    with pytest.raises(ConversionError) as raised:
        check_json({"spec": {"x": [0, float("inf")]}})
    assert raised.value.path == "spec.x[1]"
    with pytest.raises(ConversionError, match="not text"):
        check_json({"spec": {3: 1}})
    with pytest.raises(ConversionError, match="nesting deeper than 100"):
        check_json(nested(200))


def plain(value: Any, depth: int = 0) -> bool:
    """What check_json accepts, said the simplest way."""
    if isinstance(value, dict | list) and depth >= MAX_NESTING_DEPTH:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(plain(item, depth + 1) for item in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | bool | int)


@settings(max_examples=300)
@given(VALUES, st.integers(0, 3))
def test_check_json_refuses_exactly_what_is_not_plain_json(value: Any, wrap: int) -> None:
    # Wrapped near the depth limit, the same value is refused only for its depth.
    value = nested_in(value, MAX_NESTING_DEPTH - wrap)
    try:
        check_json(value)
    except ConversionError:
        assert not plain(value)
    else:
        assert plain(value)


def nested_in(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = [value]
    return value


def test_same_tells_apart_what_json_tells_apart() -> None:
    assert same({"a": [1, "x"]}, {"a": [1, "x"]})
    assert not same(True, 1)
    assert not same(1, 1.0)
    assert not same({"a": 1}, {"a": 1, "b": None})
    assert digest([True]) != digest([1])
