"""What a real node leaves on the host besides network settings, found and removed: processes that
outlive their parent (containerd shims, containers), mounts, kubepods cgroups, and the machine-wide
lock that keeps two real nodes apart.

Everything is found by where it lives (our directories, our containerd socket, the ``kubepods``
cgroups), never by a process name alone, so nothing of another program is touched.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

LOCK_FILE = Path("/run/dynamo-real-node.lock")
_CGROUP_ROOT = Path("/sys/fs/cgroup")
_KUBEPODS = "kubepods"


class RealNodeBusyError(RuntimeError):
    """Another real node holds the machine-wide lock."""


class MachineLock:
    """An exclusive flock on ``LOCK_FILE``, held while a real node runs on this machine.

    The lock belongs to the open file, so it is held by every process that inherited the
    descriptor (the kubelet gets it: a node started by ``hack/local-cluster up`` keeps it after the
    command exits) and released by the kernel when the last of them dies, even on SIGKILL.
    """

    def __init__(self, path: Path = LOCK_FILE) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    @property
    def fd(self) -> int:
        if self._fd is None:
            raise RuntimeError("the machine lock is not held")
        return self._fd

    def acquire(self, holder: str, *, wait: float = 0.0) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    owner = os.pread(fd, 4096, 0).decode(errors="replace").strip()
                    os.close(fd)
                    raise RealNodeBusyError(
                        f"another real node runs on this machine ({self.path} is locked by: "
                        f"{owner or 'unknown'}); stop it first (hack/local-cluster down), "
                        "only one real node fits on a machine"
                    ) from None
                time.sleep(0.2)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{holder}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def is_free(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        finally:
            os.close(fd)
        return True


# -- processes -------------------------------------------------------------------------------


def pids_with_argument(argument: str) -> list[int]:
    """Processes with ``argument`` in their command line (e.g. shims of our containerd socket)."""
    found = []
    needle = os.fsencode(argument)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline.split(b"\0"):
            found.append(int(entry.name))
    return found


def kill_and_wait(pids: Iterable[int], *, timeout: float = 10.0) -> None:
    pids = list(pids)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_running(pid) for pid in pids):
        time.sleep(0.05)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


# -- cgroups ---------------------------------------------------------------------------------


def kubepods_cgroups() -> list[Path]:
    """The kubelet's ``kubepods`` cgroup in each hierarchy (v1 controllers, the unified one)."""
    candidates = [_CGROUP_ROOT / _KUBEPODS]
    if _CGROUP_ROOT.is_dir():
        candidates += [hierarchy / _KUBEPODS for hierarchy in sorted(_CGROUP_ROOT.iterdir())]
    return [path for path in candidates if path.is_dir()]


def cgroup_pids(roots: Iterable[Path]) -> set[int]:
    pids: set[int] = set()
    for root in roots:
        for procs in root.rglob("cgroup.procs"):
            try:
                pids.update(int(line) for line in procs.read_text().split())
            except OSError:
                continue
    return pids


def remove_cgroups(roots: Iterable[Path]) -> None:
    """rmdir every cgroup below and including each root, deepest first (they must be empty)."""
    for root in roots:
        directories = [path for path in root.rglob("*") if path.is_dir()] + [root]
        for directory in sorted(directories, key=lambda p: len(p.parts), reverse=True):
            try:
                directory.rmdir()
            except OSError:
                continue


# -- mounts ----------------------------------------------------------------------------------


def mounts_under(roots: Iterable[Path]) -> list[Path]:
    """Mount points at or below any of ``roots``, deepest first."""
    prefixes = [str(root).rstrip("/") for root in roots]
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = _unescape(line.split()[4])
        if any(point == prefix or point.startswith(prefix + "/") for prefix in prefixes):
            found.append(Path(point))
    return sorted(set(found), key=lambda p: len(p.parts), reverse=True)


def unmount_all(roots: Iterable[Path]) -> None:
    roots = list(roots)
    # A mount point can be stacked several times (the kubelet bind-mounts its root onto itself).
    for _ in range(10):
        points = mounts_under(roots)
        if not points:
            return
        for point in points:
            if subprocess.run(["umount", str(point)], capture_output=True).returncode != 0:
                subprocess.run(["umount", "--lazy", str(point)], capture_output=True)


def _unescape(field: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as \ooo.
    return field.encode().decode("unicode_escape") if "\\" in field else field
