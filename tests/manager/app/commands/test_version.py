from importlib.metadata import version

import pytest

from manager.app.cli import main


def test_prints_the_installed_distribution_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["version"]) == 0

    assert capsys.readouterr().out == f"dynamo-operator {version('dynamo-operator')}\n"
