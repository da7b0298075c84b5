"""The README's Configuration table says what `dynamo-operator run` really does by default.

A default changed in the parser and not in the table (or the other way round) misleads every
reader who tunes the operator from the README; so does a flag the table forgets.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from manager.app.cli import build_parser

README = Path(__file__).resolve().parents[4] / "README.md"
FLAG = re.compile(r"`(--[A-Za-z-]+)`")
LITERAL = re.compile(r"`([^`]*)`")
UNSET: tuple[object, ...] = (None, "", [])
"""Parser defaults the operator fills in later (from the environment, the namespace or the
settings): the table says what they become, which the parser cannot tell."""


def _run_flags() -> dict[str, argparse.Action]:
    _, go_style = build_parser()
    run = go_style["run"]
    return {
        option: action
        for action in run._actions
        if not isinstance(action, argparse._HelpAction)
        for option in action.option_strings
    }


def _table_rows() -> list[tuple[list[str], str]]:
    """(flags, default cell) of each Configuration row that names flags."""
    section = README.read_text().split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `--") and len(cells) >= 3:
            rows.append((FLAG.findall(cells[0]), cells[1]))
    return rows


def _shown(default: object) -> str:
    if isinstance(default, bool):
        return str(default).lower()
    return str(default)


def test_every_run_flag_is_in_the_configuration_table() -> None:
    documented = {flag for flags, _ in _table_rows() for flag in flags}
    undocumented = sorted(set(_run_flags()) - documented)
    assert not undocumented, f"README Configuration table lacks {undocumented}"


def test_the_table_s_defaults_are_the_parser_s() -> None:
    flags = _run_flags()
    checked = 0
    for names, cell in _table_rows():
        literals = LITERAL.findall(cell) or [cell]
        for index, name in enumerate(names):
            default = flags[name].default
            if default in UNSET:
                continue
            shown = literals[min(index, len(literals) - 1)]
            assert shown == _shown(default), f"README says {name} defaults to {cell!r}"
            checked += 1
    assert checked >= 15  # the table was found and read
