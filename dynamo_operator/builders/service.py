"""The Service of a component: named after its DCD, one port per named container port.

A component without ports (no default port for its type and no named user port) gets no Service.
Multinode components route to their leaders only (``role: leader``). With Kubernetes discovery
the Service carries the labels Dynamo's frontend looks for on EndpointSlices (the API server
copies a Service's labels to its slices): every component's says which backend, and all but
frontends' say they are to be discovered. A worker is routed to once its slice lists it ready.
"""

from __future__ import annotations

from dynamo_operator.api.constants import ComponentType
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.discovery import component_discovery_backend
from dynamo_operator.builders.labels import child_metadata, selector_labels
from dynamo_operator.builders.merge import JsonDict, merge_named
from dynamo_operator.builders.ports import default_container_ports
from dynamo_operator.constants import Labels


def service_ports(component: Component) -> list[JsonDict]:
    container_ports = merge_named(
        default_container_ports(component.component_type),
        component.main_container.get("ports"),
    )
    return [
        {
            "name": port["name"],
            "port": port["containerPort"],
            "targetPort": port["name"],
            "protocol": port.get("protocol", "TCP"),
        }
        for port in container_ports
        if port.get("name") and port.get("containerPort")
    ]


def discovery_labels(component: Component, context: BuildContext) -> dict[str, str]:
    if component_discovery_backend(component.annotations, context.settings) != "kubernetes":
        return {}
    labels = {Labels.DISCOVERY_BACKEND: "kubernetes"}
    if component.component_type != ComponentType.FRONTEND:
        labels[Labels.DISCOVERY_ENABLED] = "true"
    return labels


def build_service(component: Component, context: BuildContext) -> JsonDict | None:
    ports = service_ports(component)
    if not ports:
        return None
    selector = selector_labels(component)
    if component.is_multinode:
        selector[Labels.ROLE] = "leader"
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": child_metadata(component, extra_labels=discovery_labels(component, context)),
        "spec": {"type": "ClusterIP", "selector": selector, "ports": ports},
    }
