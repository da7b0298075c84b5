"""Start, watch and stop the control plane's processes, by PID only.

Each process gets its own session (so a Ctrl-C in the terminal reaches only the harness, which then
stops the processes in order) and a log file. When ``die_with_parent`` is set, Linux's
PR_SET_PDEATHSIG makes the kernel SIGKILL the process if the harness itself dies, so even a killed
pytest leaves nothing behind (SIGKILL, because a SIGTERMed kube-apiserver can hang draining watches
of clients that died with the harness). The kernel sends it when the *thread* that forked exits,
so a process started off the main thread (chaos restarts the API server from a worker thread) is
forked by one thread kept for that, which lives as long as the harness (`spawn`). A PID is
signalled only while /proc says it still runs the binary we started, so a recycled PID is never
hit.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_PR_SET_PDEATHSIG = 1


class StartupError(RuntimeError):
    """A component exited or did not become ready in time; the message carries its log tail."""


@dataclass
class ManagedProcess:
    name: str
    pid: int
    binary: Path
    log: Path
    popen: subprocess.Popen[bytes] | None = None

    def alive(self) -> bool:
        if self.popen is not None:
            return self.popen.poll() is None
        try:
            cmdline = Path(f"/proc/{self.pid}/cmdline").read_bytes()
        except OSError:
            return False
        state = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        return cmdline.split(b"\0", 1)[0] == os.fsencode(self.binary) and state != "Z"

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, *, grace: float = 3.0, timeout: float = 10.0) -> None:
        """SIGTERM; after ``grace`` a second SIGTERM; after ``timeout`` SIGKILL.

        Kubernetes components drain in-flight requests on the first signal (kube-apiserver waits
        for long-running watches, which takes 15 s or more) and exit at once on the second; for a
        throw-away test cluster a quick stop is worth more than a drained one.
        """
        if not self.alive():
            self._reap()
            return
        os.kill(self.pid, signal.SIGTERM)
        if not self._wait_gone(grace):
            os.kill(self.pid, signal.SIGTERM)
            if not self._wait_gone(timeout):
                os.kill(self.pid, signal.SIGKILL)
                self._wait_gone(timeout)

    def _wait_gone(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._reap()
            if not self.alive():
                return True
            time.sleep(0.05)
        return False

    def _reap(self) -> None:
        if self.popen is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=0.05)


def rss_bytes(pid: int) -> int:
    """Resident memory of a process from /proc (0 when it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def start_process(
    name: str,
    argv: Sequence[str | Path],
    *,
    log_dir: Path,
    die_with_parent: bool,
    env: dict[str, str] | None = None,
    pass_fds: tuple[int, ...] = (),
) -> ManagedProcess:
    log = log_dir / f"{name}.log"
    binary = Path(argv[0])
    with log.open("ab") as log_file:
        popen = (spawn if die_with_parent else subprocess.Popen)(
            [str(a) for a in argv],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **(env or {})},
            pass_fds=pass_fds,
        )
    return ManagedProcess(name, popen.pid, binary, log, popen)


def wait_until(
    process: ManagedProcess, what: str, check: Callable[[], bool], *, timeout: float
) -> float:
    """Poll ``check`` until true; fail fast with the log tail if the process dies first.

    Returns the seconds waited (printed in the startup summary, never asserted).
    """
    started = time.monotonic()
    while not check():
        if not process.alive():
            raise StartupError(
                f"{process.name} exited while waiting for {what}:\n{process.log_tail()}"
            )
        if time.monotonic() - started > timeout:
            raise StartupError(
                f"{process.name}: {what} not reached in {timeout:.0f}s:\n{process.log_tail()}"
            )
        time.sleep(0.1)
    return time.monotonic() - started


_FORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="forker")
"""Forks what is started off the main thread: its one thread never exits before the process."""


def spawn(
    args: Sequence[str], *, sig: signal.Signals = signal.SIGKILL, **popen: Any
) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(args, **popen)` for a child the kernel sends `sig` when this process
    dies (Linux's PR_SET_PDEATHSIG), from whichever thread it is called."""

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(args, preexec_fn=_set_death_signal(sig), **popen)

    if threading.current_thread() is threading.main_thread():
        return start()
    # A pool's worker thread exits when idle, and the signal would take the child down with it.
    return _FORKER.submit(start).result()


def _set_death_signal(sig: signal.Signals) -> Callable[[], None]:
    def hook() -> None:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, sig)

    return hook
