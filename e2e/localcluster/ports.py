"""Loopback ports for the processes the suites start (control planes, operators, webhook servers).

A port the kernel picks with `bind(0)` is free only until the probe socket closes, and it comes
from the ephemeral range (32768-60999 here), the one outgoing connections take their source ports
from. With several pytest workers starting processes side by side, such a port was now and then
taken by another worker's process, or by a connection, before the process it was meant for bound
it: `address already in use`, a failed test. So ports are picked here:

- below the ephemeral range and above the kubelet's ports, in [15000, 30000) (30000 and up are
  Services' NodePorts; Dynamo 1.6.1 reads DYN_SYSTEM_PORT as an i16, so 32768 and up are no use
  to it anyway);
- from a slice of that range per xdist worker (`PYTEST_XDIST_WORKER` gw0, gw1...), so that two
  workers never hand out the same port;
- never twice by one process, and only when a bind says the port is free now.
"""

from __future__ import annotations

import os
import random
import socket

LOW, HIGH = 15000, 30000

_handed_out: set[int] = set()
_random = random.Random()


def worker_slice(worker: str | None, workers: int) -> range:
    """The ports of xdist worker `worker` ("gw3") of `workers`; all of them outside xdist."""
    if not worker or not worker.startswith("gw") or workers <= 1:
        return range(LOW, HIGH)
    width = (HIGH - LOW) // workers
    start = LOW + int(worker.removeprefix("gw")) % workers * width
    return range(start, start + width)


def free_port() -> int:
    """A loopback port no other worker hands out and this process has not handed out before,
    free right now."""
    ports = worker_slice(
        os.environ.get("PYTEST_XDIST_WORKER"),
        int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")),
    )
    for _ in range(len(ports)):
        port = _random.choice(ports)
        if port in _handed_out:
            continue
        _handed_out.add(port)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free loopback port left in {ports.start}-{ports.stop - 1}")
