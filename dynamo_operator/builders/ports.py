"""Default container ports per component type.

The port names matter: probes and Services refer to ports by name (``http``, ``system``,
``metrics``), so a user can renumber a port without touching the probes.
"""

from __future__ import annotations

from dynamo_operator.api.constants import WORKER_LIKE_COMPONENT_TYPES, ComponentType
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.constants import PortNames, Ports


def container_port(name: str, port: int) -> JsonDict:
    return {"name": name, "containerPort": port, "protocol": "TCP"}


def default_container_ports(component_type: str) -> list[JsonDict]:
    if component_type == ComponentType.FRONTEND:
        return [container_port(PortNames.HTTP, Ports.FRONTEND_HTTP)]
    if component_type in WORKER_LIKE_COMPONENT_TYPES:
        return [container_port(PortNames.SYSTEM, Ports.SYSTEM)]
    if component_type == ComponentType.PLANNER:
        # Its Prometheus metrics, and the runtime's system server its probes ask (upstream's
        # component_planner.go).
        return [
            container_port(PortNames.METRICS, Ports.PLANNER_METRICS),
            container_port(PortNames.SYSTEM, Ports.SYSTEM),
        ]
    return []
