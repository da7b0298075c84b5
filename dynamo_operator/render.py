"""Everything the operator would create for a set of documents, without a cluster.

``render_objects`` runs the same builders as the reconcilers, recursively: each
DynamoGraphDeployment yields its PVCs and DynamoComponentDeployments, and each DCD (generated or
given) yields its Deployment or LeaderWorkerSets, Service, Ingress or VirtualService and autoscaler.
Secrets of type ``kubernetes.io/dockerconfigjson`` among the documents feed pull-secret discovery.
Objects come out in a stable order: documents in input order, and for each graph its PVCs, then
per component (sorted by name) the DCD followed by its children.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from dynamo_operator.api import (
    KIND_COMPONENT_DEPLOYMENT,
    KIND_GRAPH_DEPLOYMENT,
    KIND_MODEL,
    DynamoComponentDeployment,
    DynamoGraphDeployment,
)
from dynamo_operator.builders import (
    BuildContext,
    BuildError,
    Component,
    Graph,
    build_component_children_of,
    build_component_deployments_from_graph,
    build_persistent_volume_claims_from_graph,
)
from dynamo_operator.pull_secrets import build_pull_secret_index, is_docker_config_secret
from dynamo_operator.settings import OperatorSettings


@dataclass(slots=True)
class RenderResult:
    objects: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class RenderError(ValueError):
    """A document cannot be rendered; the message names the document and the field."""


def _describe(index: int, document: Mapping[str, Any]) -> str:
    name = (document.get("metadata") or {}).get("name") or "<unnamed>"
    return f"document {index + 1} ({document.get('kind') or '<no kind>'} {name})"


def _render_component(component: Component, context: BuildContext, result: RenderResult) -> None:
    if not component.image:
        result.warnings.append(
            f"{component.namespace}/{component.name}: no extraPodSpec.mainContainer.image; "
            "the API server will reject its pods"
        )
    children = build_component_children_of(component, context)
    result.objects.extend(children.objects())
    result.warnings.extend(children.warnings)


def _render_graph(
    document: Mapping[str, Any], context: BuildContext, default_namespace: str, result: RenderResult
) -> None:
    graph = Graph.from_model(DynamoGraphDeployment.model_validate(document), default_namespace)
    result.objects.extend(build_persistent_volume_claims_from_graph(graph))
    for dcd in build_component_deployments_from_graph(graph, context):
        result.objects.append(dcd)
        _render_component(Component.from_wire(dcd, default_namespace), context, result)


def _render_document(
    document: Mapping[str, Any], context: BuildContext, default_namespace: str, result: RenderResult
) -> None:
    kind = document.get("kind")
    if kind == KIND_GRAPH_DEPLOYMENT:
        _render_graph(document, context, default_namespace, result)
    elif kind == KIND_COMPONENT_DEPLOYMENT:
        dcd = DynamoComponentDeployment.model_validate(document)
        _render_component(Component.from_model(dcd, default_namespace), context, result)
    elif kind == KIND_MODEL or (kind == "Secret" and is_docker_config_secret(document)):
        return  # nothing to create: models are discovered, secrets only feed discovery
    else:
        raise RenderError(f"unsupported kind {kind!r}")


def render_objects(
    documents: Sequence[Mapping[str, Any]],
    settings: OperatorSettings,
    *,
    default_namespace: str = "default",
) -> RenderResult:
    pull_secrets = build_pull_secret_index(documents, default_namespace=default_namespace)
    context = BuildContext(settings=settings, pull_secrets=pull_secrets)
    result = RenderResult()
    result.warnings.extend(
        f"{name}: malformed .dockerconfigjson, ignored for pull-secret discovery"
        for name in pull_secrets.skipped
    )
    for index, document in enumerate(documents):
        try:
            _render_document(document, context, default_namespace, result)
        except ValidationError as error:
            first = error.errors()[0]
            path = ".".join(str(part) for part in first["loc"])
            raise RenderError(f"{_describe(index, document)}: {path}: {first['msg']}") from error
        except (BuildError, RenderError) as error:
            raise RenderError(f"{_describe(index, document)}: {error}") from error
    return result
