"""hack/lib/common.sh: a script that sources it names the step that failed and stops there, and
installs nothing when what it needs is present."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
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


def test_one_kind_run_at_a_time_and_a_killed_run_frees_the_machine(tmp_path: Path) -> None:
    """CI found the kind step refused because a run killed mid-way had left its dockerd: the lock
    says whether a run is alive, whatever it left, even a daemon that outlives it."""
    kind_run = tmp_path / "dynamo-kind"
    daemon_started = tmp_path / "daemon-started"
    holder_script = tmp_path / "holder.sh"
    holder_script.write_text(
        f"set -euo pipefail\nsource {COMMON}\nhold_kind_lock hack/kind-up.sh\n"
        # A daemon as hack/kind/docker.sh starts dockerd; it says its pid once in its own session.
        f"(drop_kind_lock; setsid sh -c 'echo $$ >{daemon_started}.new"
        f" && mv {daemon_started}.new {daemon_started} && exec sleep 60' &)\nsleep 60\n"
    )
    env = {"PATH": "/usr/bin:/bin", "KIND_RUN": str(kind_run)}
    holder = subprocess.Popen(["bash", str(holder_script)], env=env, start_new_session=True)
    try:
        while not daemon_started.exists() and holder.poll() is None:
            time.sleep(0.05)
        assert daemon_started.exists(), "the first run did not take the lock"

        second = run_bash(
            f"KIND_RUN={kind_run}\nhold_kind_lock hack/test-kind\necho ran\n", tmp_path
        )
        assert second.returncode == 1
        assert "ran" not in second.stdout
        assert second.stderr.strip() == (
            f"hack/test-kind: another kind run holds {kind_run}.lock"
            f" ({holder.pid} hack/kind-up.sh); wait for it to end"
        )
        inherited = run_bash(
            f"KIND_RUN={kind_run} DYNAMO_KIND_LOCKED={holder.pid}\n"
            "export DYNAMO_KIND_LOCKED\nhold_kind_lock hack/kind-down.sh\necho ran\n",
            tmp_path,
        )
        assert inherited.stdout == "ran\n", inherited.stderr
    finally:
        os.killpg(holder.pid, signal.SIGKILL)  # the run and its children, not the setsid daemon
        holder.wait()

    after = run_bash(f"KIND_RUN={kind_run}\nhold_kind_lock hack/test-kind\necho ran\n", tmp_path)
    os.kill(int(daemon_started.read_text()), signal.SIGKILL)
    assert after.returncode == 0, after.stderr
    assert after.stdout == "ran\n"
