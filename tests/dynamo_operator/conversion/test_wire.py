"""Wire checks: JSON only, bounded depth; equality that tells true from 1."""

from __future__ import annotations

import pytest

from dynamo_operator.conversion.errors import ConversionError
from dynamo_operator.conversion.wire import check_json, digest, same
from tests.fixtures.documents import nested


def test_plain_json_passes_and_the_first_bad_part_is_named() -> None:
    check_json({"a": [1, 2.5, None, True, "x", {"b": []}]})
    with pytest.raises(ConversionError) as raised:
        check_json({"spec": {"x": [0, float("inf")]}})
    assert raised.value.path == "spec.x[1]"
    with pytest.raises(ConversionError, match="not text"):
        check_json({"spec": {3: 1}})
    with pytest.raises(ConversionError, match="nesting deeper than 100"):
        check_json(nested(200))


def test_same_tells_apart_what_json_tells_apart() -> None:
    assert same({"a": [1, "x"]}, {"a": [1, "x"]})
    assert not same(True, 1)
    assert not same(1, 1.0)
    assert not same({"a": 1}, {"a": 1, "b": None})
    assert digest([True]) != digest([1])
