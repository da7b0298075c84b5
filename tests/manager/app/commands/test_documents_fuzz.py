"""Fuzz: whatever the input, `validate` and `render` answer with an exit code and lines of text.

Inputs are YAML streams of (mostly) Dynamo documents with the constructs that used to escape as
tracebacks or hang spliced in: constructor errors, impossible dates, tags JSON lacks, aliases,
recursive aliases, duplicate keys, deep nesting, truncation.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest
import yaml
from hypothesis import event, given

from manager.app.cli import build_parser
from manager.app.commands.errors import YamlInputError
from manager.app.commands.yaml_input import (
    load_yaml_documents,
)
from tests.fixtures.documents import FUZZ, JSON_VALUES, yaml_texts


@FUZZ
@given(text=yaml_texts())
def test_the_loader_returns_json_values_or_one_line_of_error(text: str) -> None:
    message = ""
    try:
        documents = load_yaml_documents(text)
    except YamlInputError as error:
        message = str(error)
    if message:
        event("refused")
        assert "\n" not in message
        return
    event("loaded")
    yaml.safe_dump(documents)  # plain data: no sets, dates, bytes or shared parts


@FUZZ
@given(value=JSON_VALUES)
def test_yaml_written_from_json_reads_back_the_same(value: Any) -> None:
    """What PyYAML writes for plain JSON, the strict loader reads back unchanged."""
    if value is None:
        return  # an empty document
    assert load_yaml_documents(yaml.safe_dump(value)) == [value]


def run_command(command: str, text: str) -> tuple[int, str, str]:
    """``dynamo-operator <command> -f -`` on ``text``, in process."""
    parser, _ = build_parser([command])
    arguments = parser.parse_args([command, "-f", "-"])
    stdout, stderr = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setattr("sys.stdin", io.StringIO(text))
        code: int = arguments.func(arguments)
    return code, stdout.getvalue(), stderr.getvalue()


@FUZZ
@given(text=yaml_texts())
def test_validate_and_render_answer_any_input_with_an_exit_code(text: str) -> None:
    code, _, err = run_command("validate", text)
    assert code in (0, 1, 2)
    event(f"validate exit {code}")
    # Skipped documents and bad input: one printable line each, never a traceback.
    assert all(line.startswith("dynamo-operator validate: ") for line in err.splitlines()), err
    assert all(line.isprintable() for line in err.splitlines()), err
    if code == 2:
        assert err, "bad input is always explained"

    render_code, out, err = run_command("render", text)
    assert render_code in (0, 1, 2)
    assert all(line.startswith("dynamo-operator render: ") for line in err.splitlines()), err
    if code == 0:
        assert render_code == 0, err  # what validate accepts, render renders
        yaml.safe_load_all(out)
