"""DGD -> one DynamoComponentDeployment per service.

Each DCD is named ``<dgd>-<lowercase service>`` and carries the service entry plus what the graph
decides for all services: the backend framework (the graph's, else the one its workers launch,
as upstream's ``backendFrameworkForGeneratedDCDs``: workers launching different ones are refused),
the service name, the shared Dynamo namespace, the graph's env (under the service's own), the
graph's metrics opt-out and discovery backend annotations (under the service's own), the service
account a component of its type must run as and, for a frontend without its own ``ingress``, the
operator's default ingress. ``DYN_DEPLOYMENT_CONFIG`` in the merged env then overrides the
component's replicas and resources (``deployment_config``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import API_VERSION, KIND_COMPONENT_DEPLOYMENT, DynamoGraphDeployment
from dynamo_operator.api.constants import ComponentType
from dynamo_operator.backend_inference import launched_backends, worker_backends
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.errors import InvalidComponentError
from dynamo_operator.builders.graph import Graph
from dynamo_operator.builders.merge import JsonDict, copy_json, merge_env
from dynamo_operator.builders.metadata import object_metadata
from dynamo_operator.builders.service_account import component_service_account
from dynamo_operator.constants import GRAPH_PROPAGATED_ANNOTATIONS, Env, Labels
from dynamo_operator.deployment_config import (
    DeploymentConfigError,
    deployment_config_text,
    parse_deployment_config,
)
from dynamo_operator.field_paths import join_path
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


def _main_container(service: Mapping[str, Any]) -> Mapping[str, Any] | None:
    main = (service.get("extraPodSpec") or {}).get("mainContainer")
    return main if isinstance(main, Mapping) else None


def generated_backend(graph: Graph) -> str | None:
    """The backend every component of ``graph`` declares: the graph's, else the one its worker,
    prefill and decode services launch; ``InvalidComponentError`` when they launch several."""
    declared = graph.spec.get("backendFramework")
    if declared:
        return str(declared)
    services = sorted(graph.services.items())
    for name, service in services:
        launched = launched_backends(_main_container(service))
        if len(launched) > 1:
            raise InvalidComponentError(
                join_path("spec.services", name, "extraPodSpec", "mainContainer"),
                f"launches several backends: {', '.join(sorted(launched))}",
            )
    found = worker_backends(
        (name, service.get("componentType"), _main_container(service)) for name, service in services
    )
    if len(set(found.values())) > 1:
        launches = ", ".join(f"{name} {backend}" for name, backend in found.items())
        raise InvalidComponentError(
            "spec.backendFramework",
            f"unset, and the workers launch different backends ({launches}); a graph runs one",
        )
    return next((backend.value for backend in found.values()), None)


def _annotations(graph: Graph, service: Mapping[str, Any]) -> dict[str, str]:
    """The service's annotations over the graph's that every component carries."""
    inherited = {
        key: graph.annotations[key]
        for key in GRAPH_PROPAGATED_ANNOTATIONS
        if key in graph.annotations
    }
    return {**inherited, **(service.get("annotations") or {})}


def _apply_deployment_config(spec: JsonDict, service_name: str, service: Mapping[str, Any]) -> None:
    """``DYN_DEPLOYMENT_CONFIG`` of the component's env applied to its spec (module docstring of
    ``deployment_config``)."""
    text = deployment_config_text(spec.get("envs"))
    if text is None:
        return
    try:
        config = parse_deployment_config(text)
    except DeploymentConfigError as error:
        own = deployment_config_text(service.get("envs")) is not None
        where = join_path("spec.services", service_name, "envs") if own else "spec.envs"
        raise InvalidComponentError(where, str(error)) from None
    if spec.get("componentType") == ComponentType.FRONTEND:
        for entry in spec["envs"]:
            if entry.get("name") == Env.DYN_DEPLOYMENT_CONFIG:
                entry["value"] = config.with_frontend_port(service_name)
    overrides = config.services.get(service_name)
    if overrides is None:
        return
    if overrides.workers is not None and service.get("replicas") is None:
        spec["replicas"] = overrides.workers
    if overrides.resources or overrides.custom is not None:
        resources = spec.setdefault("resources", {})
        for side in ("requests", "limits"):
            item = resources.get(side) or {}
            item.update(overrides.resources)
            if overrides.custom is not None:
                item["custom"] = dict(overrides.custom)
            resources[side] = item


def _component_spec(
    graph: Graph,
    service_name: str,
    service: Mapping[str, Any],
    backend: str | None,
    labels: Mapping[str, str],
    context: BuildContext,
) -> JsonDict:
    spec: JsonDict = copy_json(dict(service))
    if backend:
        spec["backendFramework"] = backend
    spec["serviceName"] = service_name
    spec["dynamoNamespace"] = labels[Labels.DYNAMO_NAMESPACE]
    spec["labels"] = dict(labels)
    envs = merge_env(graph.spec.get("envs"), service.get("envs"))
    if envs:
        spec["envs"] = envs
    annotations = _annotations(graph, service)
    if annotations:
        spec["annotations"] = annotations
    component_type = service.get("componentType")
    service_account = component_service_account(component_type)
    if service_account:
        spec.setdefault("extraPodSpec", {})["serviceAccountName"] = service_account
    if component_type == ComponentType.FRONTEND and not service.get("ingress"):
        ingress = default_frontend_ingress(graph, context.settings)
        if ingress:
            spec["ingress"] = ingress
    _apply_deployment_config(spec, service_name, service)
    return spec


def build_component_deployments(
    dgd: DynamoGraphDeployment, context: BuildContext
) -> list[JsonDict]:
    """The graph's DCDs sorted by name, each owned by the graph."""
    graph = Graph.from_model(dgd, context.default_namespace)
    dynamo_namespace = graph.dynamo_namespace
    backend = generated_backend(graph)
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
                "spec": _component_spec(graph, service_name, service, backend, labels, context),
            }
        )
    deployments.sort(key=lambda dcd: str(dcd["metadata"].get("name")))
    return deployments
