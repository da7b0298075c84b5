"""Default health probes per component type, as the upstream operator injects them.

Frontends are probed on their HTTP port, worker-like components and planners on their system
port, with a two-hour startup window (720 x 10 s: model loading; a planner waits for its
workers). Other types get no probes.
Each call returns fresh dicts: callers put them into pod templates they then own.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynamo_operator.api.constants import WORKER_LIKE_COMPONENT_TYPES, ComponentType
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.constants import PortNames, Ports

# Compares jq's output instead of trusting its exit code: jq 1.6 exits 0 on empty input, so
# `curl ... | jq -e` passed while nothing listened. Empty output (no answer, an error page, no jq
# in the image) now fails the check.
FRONTEND_READINESS_COMMAND = (
    'test "$(curl -sf http://localhost:${DYNAMO_PORT}/health | jq -r .status)" = healthy'
)


@dataclass(frozen=True, slots=True)
class Probes:
    """The three container probes; ``None`` means the container has no such probe."""

    liveness: JsonDict | None = None
    readiness: JsonDict | None = None
    startup: JsonDict | None = None


def _timing(*, initial_delay: int = 0, period: int, timeout: int, failure: int) -> JsonDict:
    timing: JsonDict = {}
    if initial_delay:
        timing["initialDelaySeconds"] = initial_delay
    timing["periodSeconds"] = period
    timing["timeoutSeconds"] = timeout
    timing["failureThreshold"] = failure
    return timing


def http_get_probe(path: str, port: str, **timing: int) -> JsonDict:
    return {"httpGet": {"path": path, "port": port}, **_timing(**timing)}


def frontend_probes() -> Probes:
    return Probes(
        liveness=http_get_probe(
            "/health", PortNames.HTTP, initial_delay=60, period=60, timeout=30, failure=10
        ),
        readiness={
            "exec": {"command": ["/bin/sh", "-c", FRONTEND_READINESS_COMMAND]},
            **_timing(initial_delay=60, period=60, timeout=30, failure=10),
        },
    )


def worker_probes() -> Probes:
    return Probes(
        liveness=http_get_probe("/live", PortNames.SYSTEM, period=5, timeout=30, failure=1),
        readiness=http_get_probe("/health", PortNames.SYSTEM, period=10, timeout=30, failure=60),
        startup=http_get_probe("/live", PortNames.SYSTEM, period=10, timeout=5, failure=720),
    )


def planner_probes() -> Probes:
    """Upstream's (component_planner.go), timings included: the planner has no seed of its own."""
    return Probes(
        liveness=http_get_probe("/live", PortNames.SYSTEM, period=5, timeout=4, failure=1),
        readiness=http_get_probe("/health", PortNames.SYSTEM, period=10, timeout=4, failure=3),
        startup=http_get_probe("/live", PortNames.SYSTEM, period=10, timeout=5, failure=720),
    )


def mpi_worker_readiness_probe() -> JsonDict:
    """TRT-LLM multinode workers only run sshd: ready once the MPI SSH port accepts connections."""
    return {
        "tcpSocket": {"port": Ports.MPI_SSH},
        **_timing(initial_delay=20, period=20, timeout=5, failure=10),
    }


def default_probes(component_type: str) -> Probes:
    if component_type == ComponentType.FRONTEND:
        return frontend_probes()
    if component_type in WORKER_LIKE_COMPONENT_TYPES:
        return worker_probes()
    if component_type == ComponentType.PLANNER:
        return planner_probes()
    return Probes()
