import sys
from typing import Any

import pytest

from dynamo_operator.validation import (
    MAX_NESTING_DEPTH,
    IssueReason,
    validate_create,
    validate_update,
)
from dynamo_operator.validation.nesting import find_excessive_nesting


def nested(levels: int, leaf: Any = None) -> Any:
    value = leaf
    for level in range(levels):
        value = {"a": value} if level % 2 else [value]
    return value


def graph_with_probe(probe: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"services": {"W": {"livenessProbe": probe}}},
    }


def test_nesting_up_to_the_limit_is_fine() -> None:
    assert find_excessive_nesting(nested(MAX_NESTING_DEPTH)) is None
    assert find_excessive_nesting("scalar") is None


def test_the_first_level_beyond_the_limit_is_reported_with_a_shortened_path() -> None:
    path = find_excessive_nesting({"spec": nested(MAX_NESTING_DEPTH)})

    assert path == "spec.a[0].a[0].a[0].a... (92 more levels)"


@pytest.mark.parametrize("levels", [MAX_NESTING_DEPTH, 5_000, 200_000])
def test_an_object_nested_beyond_the_limit_is_denied_without_recursing(levels: int) -> None:
    """Used to raise RecursionError (1000 levels in a 4 KB probe) deep inside admission."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # far below the depth: any recursive walk would fail
    try:
        result = validate_create(graph_with_probe({"httpGet": nested(levels)}))
        update = validate_update(graph_with_probe(nested(levels)), graph_with_probe(None))
    finally:
        sys.setrecursionlimit(limit)

    for outcome in (result, update):
        [error] = outcome.errors
        assert error.reason is IssueReason.MALFORMED_OBJECT
        assert error.message.startswith(
            "nesting deeper than 100 levels at spec.services.W.livenessProbe"
        )
