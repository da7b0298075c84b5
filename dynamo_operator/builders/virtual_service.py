"""Istio VirtualService exposing a component whose ingress spec asks for one."""

from __future__ import annotations

from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.ingress import (
    exposure_metadata,
    ingress_host,
    ingress_spec,
    wants_virtual_service,
)
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.constants import Ports
from dynamo_operator.settings import VIRTUAL_SERVICE_API_VERSION


def build_virtual_service(component: Component, context: BuildContext) -> JsonDict | None:
    """Only when enabled with ``useVirtualService`` and a gateway; the caller checks the API."""
    ingress = ingress_spec(component)
    if not ingress or not wants_virtual_service(ingress):
        return None
    destination = {"host": component.name, "port": {"number": Ports.FRONTEND_HTTP}}
    return {
        "apiVersion": VIRTUAL_SERVICE_API_VERSION,
        "kind": "VirtualService",
        "metadata": exposure_metadata(component, ingress),
        "spec": {
            "hosts": [ingress_host(ingress, component)],
            "gateways": [ingress["virtualServiceGateway"]],
            "http": [
                {"match": [{"uri": {"prefix": "/"}}], "route": [{"destination": destination}]}
            ],
        },
    }
