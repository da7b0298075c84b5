"""A graph that names an artifact, expanded into the graph the builders already know.

When ``spec.dynamoComponent`` is set, the graph's services are the artifact's (``dynamo.yaml``),
each running the image built from it; ``spec.services`` only overrides them, as upstream's
``GenerateDynamoComponentsDeployments`` did. The expanded graph has one ordinary service entry per
artifact service, so the existing builders make its DCDs, PVCs and workloads unchanged.

An artifact service becomes:

=========================================== ===============================================
``config.workers``                          ``replicas``
``config.resources`` (cpu, memory, gpu,     ``resources.requests`` and ``resources.limits``
custom)
``config.total_gpus`` / ``resources.gpu``   ``multinode.nodeCount`` when more than one node
``config.autoscaling``                      ``autoscaling`` (enabled, min/max replicas)
``config.dynamo.namespace`` (if enabled)    ``dynamoNamespace``
``config.dynamo.component_type``            ``componentType``
``config.extraPodSpec``                     ``extraPodSpec``
the built image                             ``extraPodSpec.mainContainer.image``
the artifact and its ``service``            ``dynamoComponent`` and ``dynamoTag`` (on the DCD)
=========================================== ===============================================

then the graph's entry of the same name is merged over it (maps key by key, everything else
replaced: the graph's replicas, envs, image win). ``http_exposed`` needs no mapping: a service is
exposed by its ``componentType`` (frontend) or its ``ingress``, as everywhere else.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError

from dynamo_operator.api import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment
from dynamo_operator.builders import deep_merge
from dynamo_operator.image_build.errors import ArtifactExpansionError
from dynamo_operator.image_build.manifest import ArtifactManifest, ArtifactService
from dynamo_operator.image_build.service_pvcs import expand_service_pvcs

JsonDict = dict[str, Any]


def _node_count(service: ArtifactService) -> int:
    config = service.config
    gpus_per_node = config.resources.gpu if config.resources else None
    if not config.total_gpus or not gpus_per_node or gpus_per_node == "0":
        return 1
    if not gpus_per_node.isdigit():
        raise ArtifactExpansionError(
            f"dynamo.yaml service {service.name}: resources.gpu {gpus_per_node!r} must be a whole "
            "number of GPUs per node to spread total_gpus over nodes"
        )
    return math.ceil(config.total_gpus / int(gpus_per_node))


def artifact_service_entry(
    manifest: ArtifactManifest, service: ArtifactService, dynamo_component: str, image: str
) -> JsonDict:
    """The graph service entry (wire form) one artifact service stands for, before overrides."""
    config = service.config
    entry: JsonDict = {"dynamoComponent": dynamo_component}
    if manifest.service:
        entry["dynamoTag"] = manifest.service
    if config.dynamo and config.dynamo.component_type:
        entry["componentType"] = config.dynamo.component_type
    if config.dynamo and config.dynamo.enabled and config.dynamo.namespace:
        entry["dynamoNamespace"] = config.dynamo.namespace
    if config.workers is not None:
        entry["replicas"] = config.workers
    if config.resources:
        amounts = config.resources.model_dump(exclude_none=True)
        if amounts:
            entry["resources"] = {"requests": amounts, "limits": dict(amounts)}
    nodes = _node_count(service)
    if nodes > 1:
        entry["multinode"] = {"nodeCount": nodes}
    if config.autoscaling:
        entry["autoscaling"] = {
            "enabled": True,
            "minReplicas": config.autoscaling.min_replicas,
            "maxReplicas": config.autoscaling.max_replicas,
        }
    entry["extraPodSpec"] = deep_merge(
        config.extra_pod_spec or {}, {"mainContainer": {"image": image}}
    )
    return entry


def _overrides(graph: DynamoGraphDeployment, manifest: ArtifactManifest) -> dict[str, JsonDict]:
    services: dict[str, JsonDict] = graph.to_wire()["spec"].get("services") or {}
    unknown = sorted(name for name in services if manifest.service_named(name) is None)
    if unknown:
        known = ", ".join(service.name for service in manifest.services)
        raise ArtifactExpansionError(
            f"spec.services.{unknown[0]}: not a service of artifact "
            f"{graph.spec.dynamo_component} (its services: {known})"
        )
    return services


def component_deployments_from_artifact(
    graph: DynamoGraphDeployment, manifest: ArtifactManifest, component_image: str
) -> dict[str, DynamoComponentDeploymentSharedSpec]:
    """Each artifact service's entry with the graph's entry of that name merged over it, by
    service name in the manifest's order. ArtifactExpansionError when the graph overrides a
    service the artifact lacks or an entry does not parse (the message names the field)."""
    if not graph.spec.dynamo_component:
        raise ArtifactExpansionError("spec.dynamoComponent: the graph names no artifact")
    overrides = _overrides(graph, manifest)
    entries: dict[str, DynamoComponentDeploymentSharedSpec] = {}
    for service in manifest.services:
        base = artifact_service_entry(
            manifest, service, graph.spec.dynamo_component, component_image
        )
        merged = deep_merge(base, overrides.get(service.name) or {})
        try:
            entries[service.name] = DynamoComponentDeploymentSharedSpec.model_validate(merged)
        except ValidationError as error:
            detail = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in detail["loc"])
            raise ArtifactExpansionError(
                f"service {service.name} of artifact {graph.spec.dynamo_component}: "
                f"{where}: {detail['msg']}"
            ) from None
    return entries


def expand_graph_with_artifact(
    graph: DynamoGraphDeployment, manifest: ArtifactManifest, component_image: str
) -> DynamoGraphDeployment:
    """The graph as the builders take it: its services are the artifact's, overridden by its own,
    each running ``component_image``, with service-level ``pvc``s expanded. Never mutates
    ``graph``."""
    services = component_deployments_from_artifact(graph, manifest, component_image)
    expanded = graph.model_copy(deep=True)
    expanded.spec.services = services
    return expand_service_pvcs(expanded)
