from datetime import timedelta

import pytest

from dynamo_operator.durations import (
    InvalidDurationError,
    format_duration,
    parse_duration,
    positive_duration,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90s", timedelta(seconds=90)),
        ("30m", timedelta(minutes=30)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("1.5h", timedelta(hours=1, minutes=30)),
        ("2h45m30.5s", timedelta(hours=2, minutes=45, seconds=30.5)),
        ("500ms", timedelta(milliseconds=500)),
        ("10us", timedelta(microseconds=10)),
        ("0", timedelta(0)),
        ("-5m", timedelta(minutes=-5)),
        ("+5m", timedelta(minutes=5)),
        (" 5m ", timedelta(minutes=5)),
    ],
)
def test_go_durations_parse_as_go_reads_them(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "5", "m", "5 m", "1d", "1h-5m", "1..5h", "abc", "5M"])
def test_anything_else_is_refused_with_examples(text: str) -> None:
    with pytest.raises(InvalidDurationError, match="such as 90s"):
        parse_duration(text)


def test_an_absurdly_long_duration_is_refused() -> None:
    with pytest.raises(InvalidDurationError, match="too long"):
        parse_duration("99999999999999h")


@pytest.mark.parametrize("text", ["0", "0s", "-1m"])
def test_a_positive_duration_is_more_than_zero(text: str) -> None:
    with pytest.raises(InvalidDurationError, match="more than zero"):
        positive_duration(text)


def test_whole_seconds_print_as_go_prints_them() -> None:
    assert format_duration(timedelta(hours=1, minutes=30)) == "1h30m0s"
    assert format_duration(timedelta(minutes=2, seconds=5)) == "2m5s"
    assert format_duration(timedelta(seconds=45)) == "45s"
    assert format_duration(timedelta(seconds=-45)) == "-45s"
    assert parse_duration(format_duration(timedelta(hours=3, seconds=7))) == timedelta(
        hours=3, seconds=7
    )
