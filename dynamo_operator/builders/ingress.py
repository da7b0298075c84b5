"""Exposure outside the cluster: the component's ``ingress`` spec, as an Ingress.

The host is ``[hostPrefix]<host>.<hostSuffix or "local">``. An Ingress needs an ingress class;
with ``useVirtualService`` the component is exposed through an Istio VirtualService instead
(``virtual_service.py``). Unlike upstream v0.7, the ``annotations`` and ``labels`` of the ingress
spec do reach the generated object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.labels import child_metadata
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.constants import DEFAULT_INGRESS_HOST_SUFFIX, Ports


def ingress_spec(component: Component) -> Mapping[str, Any]:
    ingress = component.spec.get("ingress")
    return ingress if isinstance(ingress, Mapping) and ingress.get("enabled") else {}


def ingress_host(ingress: Mapping[str, Any], component: Component) -> str:
    host = ingress.get("host") or component.name
    suffix = ingress.get("hostSuffix") or DEFAULT_INGRESS_HOST_SUFFIX
    return f"{ingress.get('hostPrefix') or ''}{host}.{suffix}"


def exposure_metadata(component: Component, ingress: Mapping[str, Any]) -> JsonDict:
    """The Ingress or VirtualService also carries the ingress spec's own labels and annotations."""
    return child_metadata(
        component, extra_labels=ingress.get("labels"), extra_annotations=ingress.get("annotations")
    )


def wants_virtual_service(ingress: Mapping[str, Any]) -> bool:
    return bool(ingress.get("useVirtualService") and ingress.get("virtualServiceGateway"))


def build_ingress(component: Component, context: BuildContext) -> JsonDict | None:
    ingress = ingress_spec(component)
    class_name = ingress.get("ingressControllerClassName")
    if not ingress or wants_virtual_service(ingress) or not class_name:
        return None
    host = ingress_host(ingress, component)
    backend = {"service": {"name": component.name, "port": {"number": Ports.FRONTEND_HTTP}}}
    spec: JsonDict = {
        "ingressClassName": class_name,
        "rules": [
            {
                "host": host,
                "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]},
            }
        ],
    }
    secret_name = (ingress.get("tls") or {}).get("secretName")
    if secret_name:
        spec["tls"] = [{"hosts": [host], "secretName": secret_name}]
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": exposure_metadata(component, ingress),
        "spec": spec,
    }
