"""The conversions `/convert` remembers: the same answer as converting, never another object's
or another version's, bounded, and kept as compact text."""

from __future__ import annotations

import copy
import tracemalloc
from typing import Any

import orjson
import pytest

from dynamo_operator.conversion import ConversionError, convert
from tests.webhooks.reviews import alpha_graph
from webhooks.conversion_memo import ConversionMemo

ALPHA, BETA = "nvidia.com/v1alpha1", "nvidia.com/v1beta1"


def graph(name: str = "demo", resource_version: str = "7", replicas: int = 2) -> dict[str, Any]:
    return alpha_graph(name, f"uid-{name}", resource_version, decode_replicas=replicas)


def as_json(answer: Any) -> Any:
    return orjson.loads(orjson.dumps(answer))


def test_the_same_object_asked_again_gets_the_same_answer_without_converting() -> None:
    memo = ConversionMemo()
    first = as_json(memo.convert(graph(), BETA))
    again = as_json(memo.convert(copy.deepcopy(graph()), BETA))
    assert first == again == convert(graph(), BETA)
    assert (memo.hits, memo.misses) == (1, 1)


def test_another_version_or_a_changed_object_is_converted_afresh() -> None:
    memo = ConversionMemo()
    beta = as_json(memo.convert(graph(), BETA))
    assert as_json(memo.convert(beta, ALPHA)) == convert(beta, ALPHA)
    changed = graph(resource_version="8", replicas=3)
    assert as_json(memo.convert(changed, BETA)) == convert(changed, BETA)
    assert (memo.hits, memo.misses) == (0, 3)


def test_only_the_last_conversions_are_kept() -> None:
    memo = ConversionMemo(size=2)
    for name in ("a", "b", "c"):
        memo.convert(graph(name), BETA)
    assert len(memo) == 2
    memo.convert(graph("c"), BETA)
    memo.convert(graph("a"), BETA)  # the oldest went first
    assert (memo.hits, memo.misses) == (1, 4)


def test_a_refusal_is_not_remembered() -> None:
    memo = ConversionMemo()
    for _ in range(2):
        with pytest.raises(ConversionError):
            memo.convert(graph(), "nvidia.com/v2")
    assert len(memo) == 0


def test_what_json_cannot_key_is_converted_without_the_memo() -> None:
    memo = ConversionMemo()
    deep: dict[str, Any] = {}
    graph_too_deep = graph()
    graph_too_deep["spec"]["services"]["Frontend"]["deep"] = deep
    for _ in range(300):  # deeper than orjson writes: refused by the conversion's own check
        deep["x"] = deep = {}
    with pytest.raises(ConversionError, match="nesting deeper than"):
        memo.convert(graph_too_deep, BETA)
    assert len(memo) == 0


def test_remembered_answers_take_about_their_json_size() -> None:
    graphs = [graph(f"g-{index}") for index in range(64)]
    json_size = sum(len(orjson.dumps(convert(g, BETA))) for g in graphs)
    memo = ConversionMemo(size=64)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for g in graphs:
            memo.convert(g, BETA)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 3 * json_size, (kept, json_size)
