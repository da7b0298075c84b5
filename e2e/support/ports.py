"""Ports for the processes a test starts on loopback (operator, webhook server, metrics)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port free on 127.0.0.1 now; the kernel picks it, so two callers rarely collide."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
