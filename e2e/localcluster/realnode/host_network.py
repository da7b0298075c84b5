"""The host's network settings a real node touches: kernel sysctls, iptables chains
and the Pod bridge. Everything here is machine-wide, which is why one real node runs per machine.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

# What the kubelet (setupKernelTunables), kube-proxy and the CNI bridge plugin may change on the
# host, saved before the node starts and written back when it stops.
SYSCTLS = (
    "net.ipv4.ip_forward",
    "net.ipv4.conf.all.route_localnet",
    "net.bridge.bridge-nf-call-iptables",
    "net.bridge.bridge-nf-call-ip6tables",
    "vm.overcommit_memory",
    "vm.panic_on_oom",
    "kernel.panic",
    "kernel.panic_on_oops",
    "kernel.keys.root_maxkeys",
    "kernel.keys.root_maxbytes",
)
# Chains kube-proxy, the kubelet and the CNI plugins (bridge ipMasq, portmap) create.
OWNED_CHAIN_PREFIXES = ("KUBE-", "CNI-")
_TABLES = ("filter", "nat", "mangle", "raw")
_IPTABLES = ("iptables", "ip6tables")


def _sysctl_path(name: str) -> Path:
    return Path("/proc/sys") / name.replace(".", "/")


def read_sysctls(names: tuple[str, ...] = SYSCTLS) -> dict[str, str]:
    """Current values of those sysctls that exist on this kernel."""
    values = {}
    for name in names:
        try:
            values[name] = _sysctl_path(name).read_text().strip()
        except OSError:
            continue
    return values


def write_sysctls(values: dict[str, str]) -> None:
    for name, value in values.items():
        _sysctl_path(name).write_text(value + "\n")


def owned_iptables_chains() -> list[str]:
    """``iptables:nat:KUBE-SERVICES``-style names of every owned chain still present."""
    found = []
    for tool in _IPTABLES:
        for table in _TABLES:
            for line in _save(tool, table):
                if line.startswith(":") and line[1:].startswith(OWNED_CHAIN_PREFIXES):
                    found.append(f"{tool}:{table}:{line[1:].split()[0]}")
    return found


def flush_owned_iptables_chains() -> None:
    """Remove the jumps into owned chains from every other chain, then the owned chains."""
    for tool in _IPTABLES:
        for table in _TABLES:
            jumps, owned = plan_iptables_cleanup(_save(tool, table))
            for rule in jumps:
                _run([tool, "-w", "-t", table, "-D", *rule])
            for chain in owned:
                _run([tool, "-w", "-t", table, "-F", chain])
            for chain in owned:
                _run([tool, "-w", "-t", table, "-X", chain])


def plan_iptables_cleanup(save_lines: list[str]) -> tuple[list[list[str]], list[str]]:
    """From one table's ``iptables-save`` output: the rules of other chains that jump into an
    owned chain (as ``-D`` arguments: chain, then the rule), and the owned chains."""
    jumps: list[list[str]] = []
    owned: list[str] = []
    for line in save_lines:
        if line.startswith(":") and line[1:].startswith(OWNED_CHAIN_PREFIXES):
            owned.append(line[1:].split()[0])
        elif line.startswith("-A "):
            words = shlex.split(line)
            chain, target = words[1], _target(words)
            if not chain.startswith(OWNED_CHAIN_PREFIXES) and target.startswith(
                OWNED_CHAIN_PREFIXES
            ):
                jumps.append(words[1:])
    return jumps, owned


def link_exists(name: str) -> bool:
    return Path("/sys/class/net", name).exists()


def delete_link(name: str) -> None:
    if link_exists(name):
        _run(["ip", "link", "delete", name])


def _target(words: list[str]) -> str:
    for flag in ("-j", "--jump", "-g", "--goto"):
        if flag in words[:-1]:
            return words[words.index(flag) + 1]
    return ""


def _save(tool: str, table: str) -> list[str]:
    result = subprocess.run(
        [f"{tool}-save", "-t", table], capture_output=True, text=True, check=False
    )
    # A table the kernel never loaded is simply empty.
    return result.stdout.splitlines() if result.returncode == 0 else []


def _run(argv: list[str]) -> None:
    subprocess.run(argv, capture_output=True, check=False)
