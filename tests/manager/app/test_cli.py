import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from manager.app.cli import COMMANDS, main

CONSOLE_SCRIPT = Path(sys.executable).with_name("dynamo-operator")
SEED_GRAPH = Path(__file__).resolve().parents[2] / "fixtures" / "graphs" / "disagg.yaml"


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([])

    assert exited.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["render", "validate", "crds", "version"])
def test_each_command_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])

    assert exited.value.code == 0
    assert f"dynamo-operator {command}" in capsys.readouterr().out


def test_installed_console_script_renders_a_graph() -> None:
    completed = subprocess.run(
        [str(CONSOLE_SCRIPT), "render", "-f", str(SEED_GRAPH)],
        capture_output=True,
        text=True,
        check=False,
    )

    assert completed.returncode == 0, completed.stderr
    kinds = {doc["kind"] for doc in yaml.safe_load_all(completed.stdout) if doc}
    assert "DynamoComponentDeployment" in kinds
    assert "Traceback" not in completed.stderr


def test_installed_console_script_reports_bad_input_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: DynamoGraphDeployment\nspec: 3\n")

    completed = subprocess.run(
        [str(CONSOLE_SCRIPT), "validate", "-f", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )

    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert "spec: must be an object" in completed.stderr


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_listing_shows_the_help_each_command_registers(command: str) -> None:
    """The root listing comes from `COMMANDS` without importing the commands; it must say what
    each module registers when its command runs."""
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    importlib.import_module(COMMANDS[command].module).register(subparsers)

    [registered] = [action for action in subparsers._choices_actions if action.dest == command]
    assert registered.help == COMMANDS[command].help


# Modules that only `run` and `webhook-server` need: a command that reads files must not pay for
# them (nor pick a log renderer by what happens to be installed: these commands never log).
HEAVY_MODULES = (
    "aiohttp",
    "kr8s",
    "structlog",
    "rich",
    "anyio",
    "webhooks",
    "manager.runtime.manager",
)


@pytest.mark.parametrize(
    "arguments",
    [["version"], ["validate", "-f", str(SEED_GRAPH)], ["render", "-f", str(SEED_GRAPH)], ["crds"]],
    ids=["version", "validate", "render", "crds"],
)
def test_commands_that_read_files_import_only_what_they_use(arguments: list[str]) -> None:
    script = (
        "import sys, contextlib, io\n"
        "from manager.app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main({arguments!r})\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY_MODULES!r}"
        f" or m in {HEAVY_MODULES!r})\n"
        "print(code, heavy)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    assert completed.stdout.strip() == "0 []", completed.stdout + completed.stderr
