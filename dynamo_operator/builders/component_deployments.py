"""DGD -> one DynamoComponentDeployment per service (reference §2.3, SPEC §3).

Each DCD is named ``<dgd>-<lowercase service>`` and carries the service entry plus what the graph
decides for all services: the backend framework, the service name, the shared Dynamo namespace,
the graph's env (under the service's own), the graph-level metrics opt-out, the planner's service
account and, for a frontend without its own ``ingress``, the operator's default ingress.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import API_VERSION, KIND_COMPONENT_DEPLOYMENT, DynamoGraphDeployment
from dynamo_operator.api.constants import ComponentType
from dynamo_operator.builders.component import object_metadata
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.graph import Graph
from dynamo_operator.builders.merge import JsonDict, copy_json, merge_env
from dynamo_operator.constants import PLANNER_SERVICE_ACCOUNT_NAME, Annotations, Labels
from dynamo_operator.naming import component_deployment_name
from dynamo_operator.settings import OperatorSettings


def default_frontend_ingress(graph: Graph, settings: OperatorSettings) -> JsonDict | None:
    """The operator-wide ingress for frontends, enabled by an ingress class or an Istio gateway."""
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
    if settings.ingress_host_suffix:
        ingress["hostSuffix"] = settings.ingress_host_suffix
    return ingress


def _graph_labels(graph: Graph, service_name: str, dynamo_namespace: str) -> dict[str, str]:
    return {
        Labels.COMPONENT: service_name,
        Labels.DYNAMO_NAMESPACE: dynamo_namespace,
        Labels.GRAPH_DEPLOYMENT_NAME: graph.name,
    }


def _component_spec(
    graph: Graph,
    service_name: str,
    service: Mapping[str, Any],
    dynamo_namespace: str,
    context: BuildContext,
) -> JsonDict:
    spec: JsonDict = copy_json(dict(service))
    if graph.spec.get("backendFramework"):
        spec["backendFramework"] = graph.spec["backendFramework"]
    spec["serviceName"] = service_name
    spec["dynamoNamespace"] = dynamo_namespace
    spec["labels"] = {
        **(service.get("labels") or {}),
        **_graph_labels(graph, service_name, dynamo_namespace),
    }
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
    if component_type == ComponentType.PLANNER:
        extra_pod_spec = spec.setdefault("extraPodSpec", {})
        extra_pod_spec["serviceAccountName"] = PLANNER_SERVICE_ACCOUNT_NAME
    if component_type == ComponentType.FRONTEND and not service.get("ingress"):
        ingress = default_frontend_ingress(graph, context.settings)
        if ingress:
            spec["ingress"] = ingress
    return spec


def build_component_deployments_from_graph(graph: Graph, context: BuildContext) -> list[JsonDict]:
    """DCDs sorted by name, each owned by the graph."""
    dynamo_namespace = graph.dynamo_namespace
    deployments: list[JsonDict] = []
    for service_name, service in graph.services.items():
        labels = {
            **(service.get("labels") or {}),
            **_graph_labels(graph, service_name, dynamo_namespace),
        }
        deployments.append(
            {
                "apiVersion": API_VERSION,
                "kind": KIND_COMPONENT_DEPLOYMENT,
                "metadata": object_metadata(
                    component_deployment_name(graph.name, service_name),
                    graph.namespace,
                    labels,
                    {},
                    graph.owner_reference(),
                ),
                "spec": _component_spec(graph, service_name, service, dynamo_namespace, context),
            }
        )
    deployments.sort(key=lambda dcd: str(dcd["metadata"].get("name")))
    return deployments


def build_component_deployments(
    dgd: DynamoGraphDeployment, context: BuildContext, default_namespace: str = "default"
) -> list[JsonDict]:
    return build_component_deployments_from_graph(Graph.from_model(dgd, default_namespace), context)
