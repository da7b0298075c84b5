import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from manager.cli import main

CONSOLE_SCRIPT = Path(sys.executable).with_name("dynamo-operator")
SEED_GRAPH = Path(__file__).resolve().parents[1] / "fixtures" / "graphs" / "disagg.yaml"


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
