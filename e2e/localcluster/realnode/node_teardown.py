"""Undo everything a real node did to the host, in order, whether it stopped cleanly or was killed.

``HostState`` is written before the node changes anything (to ``/run/realnode/state.json``): the
sysctls as they were, the shared directories that did not exist yet, the daemons' PIDs. ``teardown``
reads it back, so the next start (or ``hack/local-cluster down``) can clean up after a harness that
was SIGKILLed. ``leftovers`` lists what is still there; after a teardown it is empty.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from e2e.localcluster.processes import ManagedProcess
from e2e.localcluster.realnode import host_cleanup, host_network
from e2e.localcluster.realnode.node_config import BRIDGE, NodePaths

# Shared directories the kubelet, containerd or the CNI plugins create when missing; whichever did
# not exist before the node started is removed again. Not /run/netns: pod network namespaces live
# under the node's state dir (node_config: netns_mounts_under_state_dir), so the node never makes
# it (checked with pods running), while `ip netns` test hosts of another module may be using it at
# that moment (e2e/lora_workers.py): removing it broke their namespaces and, busy, failed the stop.
SHARED_PATHS = (
    Path("/var/log/containers"),  # the kubelet's symlinks to container logs (fixed path)
    Path("/var/lib/kubelet"),  # the kubelet's device-plugins dir, whatever --root-dir says
    Path("/var/lib/cni"),  # libcni's result cache
    Path("/run/containerd"),  # the shims' sockets (/run/containerd/s, fixed path)
    Path("/etc/cni"),
    Path("/opt/cni"),
    Path("/opt/containerd"),  # containerd's opt plugin, should its path setting be ignored
)


@dataclass
class HostState:
    sysctls: dict[str, str]
    created_paths: list[str]
    processes: dict[str, dict[str, str | int]] = field(default_factory=dict)
    holder: str = ""

    @classmethod
    def capture(cls, holder: str) -> HostState:
        missing = [str(path) for path in SHARED_PATHS if not path.exists()]
        return cls(host_network.read_sysctls(), missing, holder=holder)

    @classmethod
    def load(cls, paths: NodePaths) -> HostState | None:
        try:
            return cls(**json.loads(paths.state_file.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def save(self, paths: NodePaths) -> None:
        paths.state_file.parent.mkdir(parents=True, exist_ok=True)
        paths.state_file.write_text(json.dumps(asdict(self), indent=2))

    def managed_processes(self) -> list[ManagedProcess]:
        return [
            ManagedProcess(name, int(entry["pid"]), Path(str(entry["binary"])), Path("/dev/null"))
            for name, entry in self.processes.items()
        ]


def has_remains(paths: NodePaths) -> bool:
    """Cheap check whether a node (running or dead) left anything to tear down."""
    return (
        paths.state_file.exists()
        or paths.lib.exists()
        or paths.run.exists()
        or host_network.link_exists(BRIDGE)
        or bool(host_cleanup.kubepods_cgroups())
    )


def teardown(paths: NodePaths, state: HostState | None) -> None:
    """Stop and remove everything; each step is idempotent and skips what is already gone."""
    if state is not None:
        for process in state.managed_processes():
            if process.alive():
                host_cleanup.kill_and_wait([process.pid])
    socket = str(paths.containerd_socket)
    host_cleanup.kill_and_wait(host_cleanup.pids_with_argument(socket))
    cgroups = host_cleanup.kubepods_cgroups()
    # Containers whose shim died keep running in their cgroups: kill them there.
    for _ in range(20):
        pids = host_cleanup.cgroup_pids(cgroups)
        if not pids:
            break
        host_cleanup.kill_and_wait(pids, timeout=2.0)
    roots = _mount_roots(paths)
    host_cleanup.unmount_all(roots)
    host_network.flush_owned_iptables_chains()
    host_network.delete_link(BRIDGE)
    host_cleanup.remove_cgroups(host_cleanup.kubepods_cgroups())
    _remove_container_log_links(paths)
    if state is not None:
        host_network.write_sysctls(state.sysctls)
        for created in state.created_paths:
            _remove_if_only_ours(Path(created))
    if not host_cleanup.mounts_under(roots):
        shutil.rmtree(paths.lib, ignore_errors=True)
        shutil.rmtree(paths.run, ignore_errors=True)


def leftovers(paths: NodePaths, state: HostState | None) -> list[str]:
    """Human-readable list of what a node left on the host (empty when the host is clean); with
    the node's ``state``, also sysctls not restored and shared directories not removed."""
    sysctls = state.sysctls if state is not None else None
    created = state.created_paths if state is not None else []
    found = []
    shims = host_cleanup.pids_with_argument(str(paths.containerd_socket))
    found += [f"process {pid} on {paths.containerd_socket}" for pid in shims]
    cgroups = host_cleanup.kubepods_cgroups()
    found += [f"process {pid} in kubepods" for pid in sorted(host_cleanup.cgroup_pids(cgroups))]
    found += [f"cgroup {path}" for path in cgroups]
    found += [f"mount {point}" for point in host_cleanup.mounts_under(_mount_roots(paths))]
    found += [f"iptables chain {chain}" for chain in host_network.owned_iptables_chains()]
    if host_network.link_exists(BRIDGE):
        found.append(f"link {BRIDGE}")
    found += [f"directory {path}" for path in (paths.lib, paths.run) if path.exists()]
    found += [f"directory {path}" for path in created if Path(path).exists()]
    if sysctls is not None:
        now = host_network.read_sysctls(tuple(sysctls))
        found += [
            f"sysctl {k}={now.get(k)} (was {v})" for k, v in sysctls.items() if now.get(k) != v
        ]
    return found


def wait_for_no_cgroup_processes(timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and host_cleanup.cgroup_pids(host_cleanup.kubepods_cgroups()):
        time.sleep(0.2)


def _mount_roots(paths: NodePaths) -> list[Path]:
    # Network namespaces too: containerd mounts them under its state dir (see node_config).
    return [paths.lib, paths.run]


def _remove_container_log_links(paths: NodePaths) -> None:
    logs = Path("/var/log/containers")
    if not logs.is_dir():
        return
    for link in logs.iterdir():
        if link.is_symlink() and str(link.readlink()).startswith(str(paths.lib) + "/"):
            link.unlink()


def _remove_if_only_ours(path: Path) -> None:
    """Remove a shared directory that did not exist before the node started: one node runs per
    machine and nothing else here uses these paths, so what is inside is the node's."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
