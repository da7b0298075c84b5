"""DGD -> one DynamoComponentDeployment per service.

Each DCD is named ``<dgd>-<lowercase service>`` and carries the service entry plus what the graph
decides for all services: the backend framework, the service name, the shared Dynamo namespace,
the graph's env (under the service's own), the graph-level metrics opt-out, the service account a
component of its type must run as and, for a frontend without its own ``ingress``, the operator's
default ingress.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import API_VERSION, KIND_COMPONENT_DEPLOYMENT, DynamoGraphDeployment
from dynamo_operator.api.constants import ComponentType
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.graph import Graph
from dynamo_operator.builders.merge import JsonDict, copy_json, merge_env
from dynamo_operator.builders.metadata import object_metadata
from dynamo_operator.builders.service_account import component_service_account
from dynamo_operator.constants import Annotations, Labels
from dynamo_operator.naming import component_deployment_name
from dynamo_operator.settings import OperatorSettings


def default_frontend_ingress(graph: Graph, settings: OperatorSettings) -> JsonDict | None:
    """The operator-wide ingress for frontends, enabled by an ingress class or an Istio gateway.

    Host ``<dgd name>``; the class, TLS secret, host suffix and gateway come from the operator's
    ``--ingress-controller-*``, ``--ingress-host-suffix`` and ``--istio-virtual-service-gateway``.
    """
    gateway = settings.istio_virtual_service_gateway
    class_name = settings.ingress_controller_class_name
    if not gateway and not class_name:
        return None
    ingress: JsonDict = {"enabled": True, "host": graph.name}
    if gateway:
        ingress["useVirtualService"] = True
        ingress["virtualServiceGateway"] = gateway
    if class_name:
        ingress["ingressControllerClassName"] = class_name
    if settings.ingress_controller_tls_secret_name:
        ingress["tls"] = {"secretName": settings.ingress_controller_tls_secret_name}
    if settings.ingress_host_suffix:
        ingress["hostSuffix"] = settings.ingress_host_suffix
    return ingress


def _labels(
    graph: Graph, dynamo_namespace: str, service_name: str, service: Mapping[str, Any]
) -> dict[str, str]:
    """The service's labels under the three that tie a DCD to its graph (metadata and spec)."""
    return {
        **(service.get("labels") or {}),
        Labels.COMPONENT: service_name,
        Labels.DYNAMO_NAMESPACE: dynamo_namespace,
        Labels.GRAPH_DEPLOYMENT_NAME: graph.name,
    }


def _component_spec(
    graph: Graph,
    service_name: str,
    service: Mapping[str, Any],
    dynamo_namespace: str,
    labels: Mapping[str, str],
    context: BuildContext,
) -> JsonDict:
    spec: JsonDict = copy_json(dict(service))
    if graph.spec.get("backendFramework"):
        spec["backendFramework"] = graph.spec["backendFramework"]
    spec["serviceName"] = service_name
    spec["dynamoNamespace"] = dynamo_namespace
    spec["labels"] = dict(labels)
    envs = merge_env(graph.spec.get("envs"), service.get("envs"))
    if envs:
        spec["envs"] = envs
    metrics = graph.annotations.get(Annotations.ENABLE_METRICS)
    if metrics is not None and Annotations.ENABLE_METRICS not in (service.get("annotations") or {}):
        spec["annotations"] = {
            **(service.get("annotations") or {}),
            Annotations.ENABLE_METRICS: metrics,
        }
    component_type = service.get("componentType")
    service_account = component_service_account(component_type)
    if service_account:
        spec.setdefault("extraPodSpec", {})["serviceAccountName"] = service_account
    if component_type == ComponentType.FRONTEND and not service.get("ingress"):
        ingress = default_frontend_ingress(graph, context.settings)
        if ingress:
            spec["ingress"] = ingress
    return spec


def build_component_deployments(
    dgd: DynamoGraphDeployment, context: BuildContext
) -> list[JsonDict]:
    """The graph's DCDs sorted by name, each owned by the graph."""
    graph = Graph.from_model(dgd, context.default_namespace)
    dynamo_namespace = graph.dynamo_namespace
    deployments: list[JsonDict] = []
    for service_name, service in graph.services.items():
        labels = _labels(graph, dynamo_namespace, service_name, service)
        deployments.append(
            {
                "apiVersion": API_VERSION,
                "kind": KIND_COMPONENT_DEPLOYMENT,
                "metadata": object_metadata(
                    graph, component_deployment_name(graph.name, service_name), labels, {}
                ),
                "spec": _component_spec(
                    graph, service_name, service, dynamo_namespace, labels, context
                ),
            }
        )
    deployments.sort(key=lambda dcd: str(dcd["metadata"].get("name")))
    return deployments
