"""Go `flag` package conventions on top of argparse, so upstream values files and docs carry over.

Go accepts `-flag` and `--flag`, `--flag=value` and `--flag value`, and booleans as `--flag` or
`--flag=true|false` (also `1`, `0`, `t`, `f`, `TRUE`, `False`, ...), never `--flag false`.
Durations are Go durations (`30s`, `1m30s`, `500ms`); bind addresses are `host:port`, `:port`, or
`0` to turn a listener off (controller-runtime's convention).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence

__all__ = [
    "BindAddress",
    "add_bool_flag",
    "normalize_go_arguments",
    "parse_bind_address",
    "parse_go_bool",
    "parse_go_duration",
]

_TRUE = {"1", "t", "T", "true", "TRUE", "True"}
_FALSE = {"0", "f", "F", "false", "FALSE", "False"}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}

BindAddress = tuple[str, int] | None
"""`(host, port)` to listen on, or None when the listener is turned off."""


def parse_go_bool(text: str) -> bool:
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise argparse.ArgumentTypeError(f"invalid boolean {text!r} (use true or false)")


def parse_go_duration(text: str) -> float:
    """Seconds in a Go duration string such as `30s`, `1m30s`, `1.5h` or `250ms`."""
    if text == "0":
        return 0.0
    position, total = 0, 0.0
    for match in _DURATION_PART.finditer(text):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        position = match.end()
    if position == 0 or position != len(text):
        raise argparse.ArgumentTypeError(
            f"invalid duration {text!r} (Go syntax, e.g. 30s, 1m30s, 500ms)"
        )
    return total


def parse_bind_address(text: str) -> BindAddress:
    """`:8080` -> ("0.0.0.0", 8080); `127.0.0.1:8080` -> as given; `0` -> None (off)."""
    if text == "0":
        return None
    host, separator, port_text = text.rpartition(":")
    if not separator or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise argparse.ArgumentTypeError(f"invalid bind address {text!r} (use host:port or :port)")
    return (host.strip("[]") or "0.0.0.0", int(port_text))


def add_bool_flag(
    parser: argparse._ActionsContainer, name: str, *, default: bool = False, help: str
) -> None:
    """A Go-style boolean: `--name` sets it, `--name=false` clears it (see `normalize_go_...`)."""
    parser.add_argument(
        f"--{name}",
        dest=name.replace("-", "_"),
        nargs="?",
        const="true",
        default=default,
        type=parse_go_bool,
        metavar="BOOL",
        help=f"{help} (default {str(default).lower()})",
    )


def normalize_go_arguments(arguments: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """Rewrite Go spellings argparse does not take: single-dash long flags (`-leader-elect`).

    A boolean given as a separate word (`--leader-elect true`) is refused, as Go refuses it:
    there it would end the flags and leave `true` as a stray argument.
    """
    long_flags = {
        option
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--")
    }
    boolean_flags = {
        option
        for action in parser._actions
        if action.type is parse_go_bool
        for option in action.option_strings
    }
    normalized: list[str] = []
    for index, argument in enumerate(arguments):
        name = argument.split("=", 1)[0]
        if name.startswith("-") and not name.startswith("--") and f"-{name}" in long_flags:
            argument = f"-{argument}"
            name = f"-{name}"
        if name in boolean_flags and "=" not in argument and index + 1 < len(arguments):
            following = arguments[index + 1]
            if following in _TRUE or following in _FALSE:
                parser.error(f"{name} is a boolean flag: write {name}={following}")
        normalized.append(argument)
    return normalized
