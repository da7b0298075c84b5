from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from e2e.localcluster.processes import ManagedProcess, StartupError, start_process, wait_until
from e2e.localcluster.waiting import wait_for

ROOT = Path(__file__).resolve().parents[3]


def test_stop_ends_a_process_that_ignores_sigterm(tmp_path: Path) -> None:
    stubborn = start_process(
        "stubborn",
        ["/bin/sh", "-c", "trap '' TERM; echo started; while :; do sleep 0.05; done"],
        log_dir=tmp_path,
        die_with_parent=True,
    )
    wait_for("the trap installed", lambda: "started" in stubborn.log.read_text())

    stubborn.stop(grace=0.2, timeout=0.5)

    assert not stubborn.alive()


def test_waiting_on_a_process_that_exits_fails_with_its_log(tmp_path: Path) -> None:
    crashing = start_process(
        "crashing",
        ["/bin/sh", "-c", "echo 'flag provided but not defined: --bogus'; exit 2"],
        log_dir=tmp_path,
        die_with_parent=True,
    )

    with pytest.raises(StartupError, match=r"(?s)crashing exited.*--bogus"):
        wait_until(crashing, "readiness", lambda: False, timeout=60)


def test_a_pid_now_running_another_program_is_not_considered_ours(tmp_path: Path) -> None:
    # This test's own PID runs python, not /bin/sleep: stop() must leave it alone.
    impostor = ManagedProcess("sleep", os.getpid(), Path("/bin/sleep"), tmp_path / "log")

    assert not impostor.alive()
    impostor.stop()


@pytest.mark.parametrize("thread", ["main", "worker"])
def test_processes_die_with_the_harness_that_started_them(tmp_path: Path, thread: str) -> None:
    """From the main thread or from a worker thread (chaos restarts the API server from one),
    which exits long before the harness does."""
    harness = textwrap.dedent(
        f"""
        import threading, time
        from pathlib import Path
        from e2e.localcluster.processes import start_process
        started = []
        def start():
            started.append(start_process("sleeper", ["/bin/sleep", "300"],
                                         log_dir=Path({str(tmp_path)!r}), die_with_parent=True))
        if {thread!r} == "main":
            start()
        else:
            worker = threading.Thread(target=start)
            worker.start()
            worker.join()
        time.sleep(0.5)
        assert started[0].alive(), "the child died with the thread that started it"
        print(started[0].pid, flush=True)
        """
    )
    # The harness exits without stopping its child, as a killed pytest would.
    output = subprocess.run(
        [sys.executable, "-c", harness], capture_output=True, text=True, check=True, cwd=ROOT
    )
    orphan = ManagedProcess("sleeper", int(output.stdout), Path("/bin/sleep"), tmp_path / "log")

    wait_for("the orphan to be terminated", lambda: not orphan.alive(), timeout=30)


def test_only_work_dirs_whose_processes_all_died_are_swept(tmp_path: Path) -> None:
    import json

    from e2e.localcluster.controlplane.cluster import LocalCluster

    own_binary = Path("/proc/self/cmdline").read_bytes().split(b"\0")[0].decode()

    def workdir(name: str, pid: int | None) -> Path:
        path = tmp_path / name
        path.mkdir()
        if pid is not None:
            entry = {"pid": pid, "binary": own_binary, "log": str(path / "log")}
            (path / "state.json").write_text(json.dumps({"processes": {"python": entry}}))
        return path

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    abandoned = workdir("run-abandoned", int(dead.stdout))
    running = workdir("run-running", os.getpid())  # this very interpreter is alive
    starting = workdir("run-starting", None)  # no state file yet

    removed = LocalCluster.remove_abandoned(tmp_path, "run-")

    assert removed == [abandoned]
    assert running.exists()
    assert starting.exists()
