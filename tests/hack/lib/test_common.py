"""hack/lib/common.sh: a script that sources it names the step that failed and stops there, and
installs nothing when what it needs is present."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ..scripts import HACK

COMMON = HACK / "lib" / "common.sh"


def run_bash(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "script.sh"
    path.write_text(
        f"set -euo pipefail\nshopt -s inherit_errexit\nsource {COMMON}\n{script}",
    )
    return subprocess.run(
        ["bash", str(path)], capture_output=True, text=True, check=False, timeout=60
    )


def test_a_failed_step_stops_the_script_with_its_name_and_line(tmp_path: Path) -> None:
    done = run_bash(
        "stop_on_failure hack/kind-up.sh\n"
        "rootfs() { debootstrap-that-is-not-installed; echo /tmp/root.tar; }\n"
        'imported() { echo "imported $1"; }\n'
        "tools_tar=$(rootfs tools)\n"  # line 7 of the script
        'imported "$tools_tar"\n',
        tmp_path,
    )

    assert done.returncode == 127
    assert "imported" not in done.stdout
    assert done.stderr.splitlines()[-1] == (
        "hack/kind-up.sh: failed (exit 127) at line 7: tools_tar=$(rootfs tools)"
    )


def test_packages_already_there_are_not_installed(tmp_path: Path) -> None:
    done = run_bash("ensure_packages bash=bash /bin/sh=dash\necho ready\n", tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "ready\n"
    assert done.stderr == ""


def test_project_python_names_what_a_python_without_the_projects_packages_lacks(
    tmp_path: Path,
) -> None:
    # A Python that sees the standard library only, as sudo's PATH gives a user of the README.
    bare = tmp_path / "bare-python"
    bare.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    bare.chmod(0o755)

    lacking = run_bash(f"PYTHON={bare} project_python hack/demo\n", tmp_path)
    found = run_bash(f"PYTHON={sys.executable} project_python hack/demo\n", tmp_path)

    assert lacking.returncode == 1
    assert lacking.stdout == ""
    assert "Traceback" not in lacking.stderr
    [line] = lacking.stderr.splitlines()
    assert line.startswith(f"hack/demo: {bare} lacks the project's packages (ModuleNotFoundError")
    assert "pip install -e '.[test]'" in line
    assert (found.returncode, found.stdout) == (0, f"{sys.executable}\n"), found.stderr
