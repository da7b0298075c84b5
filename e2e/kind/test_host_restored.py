"""After `hack/test-kind` deleted its cluster and stopped its dockerd: the host as it was before.

``DYNAMO_KIND_HOST_BEFORE`` is the directory `hack/kind/docker.sh snapshot` wrote before dockerd
started; this reads the host again on its own (not through docker.sh) and compares."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.kind_host]

KIND_RUN = Path(os.environ.get("KIND_RUN", "/run/dynamo-kind"))
# What a kind run creates (docker's bridge, the kind network's bridge, the nodes' veths, docker's
# and the nodes' cgroups); other work on a shared machine may add and remove other names meanwhile.
OURS = ("docker", "br-", "veth", "kubelet", "kubepods", "cni")


@pytest.fixture(scope="module")
def before() -> Path:
    return Path(os.environ["DYNAMO_KIND_HOST_BEFORE"])


def lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line]


def ours(names: set[str]) -> set[str]:
    return {n for n in names if n.rsplit("/", 1)[-1].startswith(OURS)}


def test_sysctls_the_kubelet_writes_are_back(before: Path) -> None:
    for line in lines(before / "sysctls"):
        name, value = line.split("=", 1)
        path = Path("/proc/sys") / name.replace(".", "/")
        now = path.read_text().strip() if path.exists() else "absent"
        assert now == value, f"{name} is {now}, was {value}"
    names = {line.split("=", 1)[0] for line in lines(before / "sysctls")}
    assert {"vm.overcommit_memory", "kernel.panic", "kernel.panic_on_oops"} <= names


def test_lib_modules_is_as_it_was(before: Path) -> None:
    assert lines(before / "lib-modules") == [
        "present" if Path("/lib/modules").exists() else "absent"
    ]


def test_no_nft_table_was_left(before: Path) -> None:
    tables = subprocess.run(["nft", "list", "tables"], capture_output=True, text=True, check=True)
    assert sorted(tables.stdout.splitlines()) == lines(before / "nft-tables")


def test_no_network_link_was_left(before: Path) -> None:
    now = set(os.listdir("/sys/class/net"))
    assert ours(now) - set(lines(before / "links")) == set()


def test_no_cgroup_directory_was_left(before: Path) -> None:
    controllers = [c for c in Path("/sys/fs/cgroup").iterdir() if not c.is_symlink()]
    now = {str(p) for c in controllers for p in c.iterdir() if p.is_dir()}
    assert ours(now) - set(lines(before / "cgroups")) == set()


def test_no_process_mount_or_state_of_the_run_is_left() -> None:
    assert not KIND_RUN.exists()
    mounts = Path("/proc/mounts").read_text()
    assert str(KIND_RUN) not in mounts
    assert "/kind/docker/" not in mounts
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        assert str(KIND_RUN).encode() not in cmdline, f"pid {proc.name}: {cmdline!r}"
