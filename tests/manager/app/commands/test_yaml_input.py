"""YAML read as the JSON kubectl would send: bounded, strict, and never a traceback."""

from __future__ import annotations

import resource
import time
from typing import Any

import pytest

from manager.app.commands.errors import YamlInputError
from manager.app.commands.yaml_input import (
    MAX_DOCUMENT_VALUES,
    MAX_FILE_BYTES,
    load_yaml_documents,
)

BILLION_LAUGHS = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(
            f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]"
            for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ]
)


def refusal(text: str) -> str:
    with pytest.raises(YamlInputError) as refused:
        load_yaml_documents(text)
    message = str(refused.value)
    assert "\n" not in message
    return message


def test_documents_come_out_as_json_values_without_empty_ones() -> None:
    text = "---\na: 1\nb: [x, 2.5, true, null]\n---\n---\nc: {}\n"

    assert load_yaml_documents(text) == [{"a": 1, "b": ["x", 2.5, True, None]}, {"c": {}}]


@pytest.mark.parametrize("text", ["", "---\n", "---\n---\n", "# only a comment\n"])
def test_a_stream_without_documents_loads_as_none(text: str) -> None:
    assert load_yaml_documents(text) == []


def test_an_alias_bomb_is_refused_quickly_and_without_memory() -> None:
    assert len(BILLION_LAUGHS) < 1000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()

    message = refusal(BILLION_LAUGHS)

    assert f"more than {MAX_DOCUMENT_VALUES} values once YAML aliases are expanded" in message
    assert "line " in message
    # Generous bounds: the expanded document would be 10**9 values.
    assert time.process_time() - started < 5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024


def test_aliases_within_the_limits_are_expanded_into_independent_copies() -> None:
    [document] = load_yaml_documents("a: &x {k: [1]}\nb: *x\n")

    assert document == {"a": {"k": [1]}, "b": {"k": [1]}}
    assert document["a"] is not document["b"]


@pytest.mark.parametrize("depth", [101, 1000, 100_000])
def test_nesting_beyond_the_limit_is_refused_with_its_line(depth: int) -> None:
    message = refusal("spec: " + "[" * depth + "]" * depth)

    assert message.startswith("nesting deeper than 100 levels (line 1, column ")


def test_nesting_reached_through_an_alias_counts() -> None:
    deep = "[" * 60 + "1" + "]" * 60
    message = refusal(f"a: &deep {deep}\nb: {'[' * 50}*deep{']' * 50}\n")

    assert message.startswith("nesting deeper than 100 levels (line 2")


def test_nesting_up_to_the_limit_loads() -> None:
    [document] = load_yaml_documents("[" * 100 + "]" * 100)

    for _ in range(99):
        document = document[0]
    assert document == []


def test_a_recursive_alias_is_refused() -> None:
    assert refusal("a: &a [1, *a]") == "alias *a refers to itself (line 1, column 11)"


def test_an_unknown_alias_is_refused() -> None:
    assert refusal("a: *nowhere").startswith("alias *nowhere names no anchor")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: !!int abc", "'abc' is not a valid integer (line 1, column 4)"),
        ("a: !!float x", "'x' is not a valid number"),
        ("a: !!bool maybe", "'maybe' is not a valid boolean"),
        ("a: !!binary '//79'", "a !!binary value must decode to UTF-8 text"),
        ("a: !!set {x, y}", "!!set has no JSON equivalent"),
        ("a: !!omap [{x: 1}]", "!!omap has no JSON equivalent"),
        ("a: .nan", "a: nan is not a number JSON can carry"),
        ("a: [-.inf]", "a[0]: -inf is not a number JSON can carry"),
        ("? [1]\n: 2", "a mapping key must be a scalar"),
        ("a: !python/object:os.system x", "could not determine a constructor"),
        ("a: [1, 2", "did not find expected ',' or ']' (line 2, column 1)"),
        ("\t- x", "found character that cannot start any token"),
    ],
)
def test_values_json_cannot_carry_are_refused_in_one_line(text: str, expected: str) -> None:
    assert expected in refusal(text)


def test_a_duplicate_key_is_refused_naming_both_lines() -> None:
    message = refusal("spec:\n  replicas: 1\n  image: x\n  replicas: 3\n")

    assert message == "duplicate key 'replicas' (first given on line 2) (line 4, column 3)"


def test_keys_that_collide_once_written_as_json_strings_are_refused() -> None:
    assert refusal("1: a\n'1': b\n").startswith("duplicate key '1' (first given on line 1)")


def test_merge_keys_are_not_duplicates() -> None:
    [document] = load_yaml_documents("base: &b {x: 1, y: 2}\nmerged:\n  <<: *b\n  y: 3\n")

    assert document["merged"] == {"x": 1, "y": 3}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2001-02-30", "2001-02-30"),  # an impossible date is text, as for kubectl
        ("2001-02-03T04:05:06Z", "2001-02-03T04:05:06Z"),
        ("8080:80", "8080:80"),  # YAML 1.1 base 60 would make it 484880
        ("=", "="),
        ("!!binary aGVsbG8=", "hello"),
        ("0x1f", 31),
        ("yes", True),
    ],
)
def test_scalars_read_as_kubectl_reads_them(value: str, expected: Any) -> None:
    assert load_yaml_documents(f"a: {value}") == [{"a": expected}]


def test_scalar_keys_become_strings() -> None:
    assert load_yaml_documents("1: a\ntrue: b\nnull: c\n1.5: d\n") == [
        {"1": "a", "true": "b", "null": "c", "1.5": "d"}
    ]


def test_a_file_larger_than_the_limit_is_refused_before_parsing() -> None:
    assert refusal("a" * (MAX_FILE_BYTES + 1)) == "larger than 16 MiB"
