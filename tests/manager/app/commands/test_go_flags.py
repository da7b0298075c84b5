"""Go flag spellings accepted by `dynamo-operator run`, so upstream values files carry over."""

from __future__ import annotations

import argparse

import pytest

from manager.app.commands.go_flags import (
    add_bool_flag,
    normalize_go_arguments,
    parse_bind_address,
    parse_go_duration,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="run", exit_on_error=False)
    add_bool_flag(parser, "leader-elect", help="elect a leader")
    add_bool_flag(parser, "enable-webhooks", default=True, help="serve webhooks")
    parser.add_argument("--restrictedNamespace", default="")
    parser.add_argument("--namespace-scope-lease-duration", type=parse_go_duration, default=30.0)
    return parser


def _parse(*arguments: str) -> argparse.Namespace:
    parser = _parser()
    return parser.parse_args(normalize_go_arguments(arguments, parser))


@pytest.mark.parametrize(
    ("arguments", "leader_elect"),
    [
        ((), False),
        (("--leader-elect",), True),
        (("-leader-elect",), True),
        (("--leader-elect=true",), True),
        (("--leader-elect=false",), False),
        (("--leader-elect=1",), True),
        (("--leader-elect=F",), False),
    ],
)
def test_booleans_parse_as_go_flags_do(arguments: tuple[str, ...], leader_elect: bool) -> None:
    assert _parse(*arguments).leader_elect is leader_elect


def test_a_boolean_defaulting_to_true_can_be_turned_off() -> None:
    assert _parse().enable_webhooks is True
    assert _parse("--enable-webhooks=false").enable_webhooks is False


def test_values_take_either_spelling() -> None:
    assert _parse("--restrictedNamespace=team-a").restrictedNamespace == "team-a"
    assert _parse("--restrictedNamespace", "team-a").restrictedNamespace == "team-a"
    assert _parse("-restrictedNamespace=team-a").restrictedNamespace == "team-a"


def test_a_boolean_followed_by_a_separate_value_is_refused() -> None:
    with pytest.raises(SystemExit):
        _parse("--leader-elect", "false")


def test_an_invalid_boolean_is_refused() -> None:
    with pytest.raises(argparse.ArgumentError):
        _parse("--leader-elect=maybe")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30s", 30.0), ("1m30s", 90.0), ("1.5h", 5400.0), ("250ms", 0.25), ("0", 0.0)],
)
def test_go_durations(text: str, seconds: float) -> None:
    assert parse_go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["30", "s", "1x", "30s ", "-5s", ""])
def test_invalid_durations_are_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="invalid duration"):
        parse_go_duration(text)


def test_bind_addresses() -> None:
    assert parse_bind_address(":8080") == ("0.0.0.0", 8080)
    assert parse_bind_address("127.0.0.1:9") == ("127.0.0.1", 9)
    assert parse_bind_address("[::1]:8081") == ("::1", 8081)
    assert parse_bind_address("0") is None
    with pytest.raises(argparse.ArgumentTypeError, match="bind address"):
        parse_bind_address("8080")
