"""The host's own address, for a control plane whose Pods (on the real node) reach the apiserver."""

from __future__ import annotations

import subprocess


class HostNetworkError(RuntimeError):
    """The host lacks something the real node needs (an address, a tool)."""


def primary_ipv4() -> str:
    """The address the host uses towards the default route (looked up, nothing is sent).

    The kubelet refuses a loopback node IP, and Pods reach the apiserver at this address.
    """
    try:
        route = subprocess.run(
            ["ip", "-o", "-4", "route", "get", "1.1.1.1"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError) as error:
        raise HostNetworkError(f"no IPv4 route to find the node IP: {error}") from None
    if "src" not in route:
        raise HostNetworkError(f"`ip route get` names no source address: {' '.join(route)}")
    return route[route.index("src") + 1]
