"""Everything the operator would create for a set of documents, without a cluster.

``render_objects`` runs the same builders as the reconcilers, recursively: each
DynamoGraphDeployment yields its PVCs and DynamoComponentDeployments, and each DCD (generated or
given) yields its Deployment or LeaderWorkerSets, Service, Ingress or VirtualService and autoscaler.
Secrets of type ``kubernetes.io/dockerconfigjson`` among the documents feed pull-secret discovery.
With Kubernetes discovery (the operator's, or a component's own annotation), the account the pods
of each namespace run as comes first with its RoleBinding (to ``discovery_cluster_role_name`` when
the settings have one, else to a Role of its own, which comes too). Then documents in input
order: for each
graph the planner's ServiceAccount (and its RoleBinding when a ``planner_cluster_role_name`` is
given) if it has a planner, its PVCs, then per component (sorted by name) the DCD followed by its
children. What several graphs share (the planner's account, a base model's headless Service)
comes out once, after the first of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
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
    build_component_children,
    build_component_deployments,
    build_discovery_access,
    build_discovery_service_account,
    build_model_service_owners,
    build_persistent_volume_claims,
    build_planner_access,
    uses_kubernetes_discovery,
)
from dynamo_operator.errors import RenderError
from dynamo_operator.image_build import expand_service_pvcs
from dynamo_operator.pull_secrets import build_pull_secret_index, is_docker_config_secret
from dynamo_operator.settings import OperatorSettings


@dataclass(slots=True)
class RenderResult:
    objects: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _describe(index: int, document: Mapping[str, Any]) -> str:
    metadata = document.get("metadata")
    name = (metadata.get("name") if isinstance(metadata, Mapping) else None) or "<unnamed>"
    return f"document {index + 1} ({document.get('kind') or '<no kind>'} {name})"


def _render_component(
    dcd: DynamoComponentDeployment | Mapping[str, Any], context: BuildContext, result: RenderResult
) -> None:
    children = build_component_children(dcd, context)
    result.objects.extend(children.objects())
    result.warnings.extend(children.warnings)


def _render_graph(
    dgd: DynamoGraphDeployment,
    context: BuildContext,
    result: RenderResult,
    planner_cluster_role_name: str | None,
) -> None:
    namespace = dgd.metadata.namespace or context.default_namespace
    result.objects.extend(build_planner_access(dgd, namespace, planner_cluster_role_name))
    result.objects.extend(build_persistent_volume_claims(dgd, context))
    for dcd in build_component_deployments(dgd, context):
        result.objects.append(dcd)
        _render_component(dcd, context, result)  # built from a validated graph: not reparsed


def _render_document(
    document: Mapping[str, Any],
    context: BuildContext,
    result: RenderResult,
    planner_cluster_role_name: str | None,
) -> None:
    kind = document.get("kind")
    if kind == KIND_GRAPH_DEPLOYMENT:
        dgd = expand_service_pvcs(DynamoGraphDeployment.model_validate(document))
        _render_graph(dgd, context, result, planner_cluster_role_name)
    elif kind == KIND_COMPONENT_DEPLOYMENT:
        _render_component(DynamoComponentDeployment.model_validate(document), context, result)
    elif kind == KIND_MODEL or (kind == "Secret" and is_docker_config_secret(document)):
        return  # nothing to create: models are discovered, secrets only feed discovery
    else:
        raise RenderError(f"unsupported kind {kind!r}")


def _components_of(document: Mapping[str, Any], context: BuildContext) -> list[Mapping[str, Any]]:
    """The DCDs a document is or yields (what the model Services' owners are read from)."""
    kind = document.get("kind")
    if kind == KIND_GRAPH_DEPLOYMENT:
        dgd = expand_service_pvcs(DynamoGraphDeployment.model_validate(document))
        return list(build_component_deployments(dgd, context))
    if kind == KIND_COMPONENT_DEPLOYMENT:
        return [DynamoComponentDeployment.model_validate(document).to_wire()]
    return []


def _for_each_document(
    documents: Sequence[Mapping[str, Any]], action: Callable[[Mapping[str, Any]], None]
) -> None:
    """Run ``action`` on every document; an error names the document and the field."""
    for index, document in enumerate(documents):
        try:
            action(document)
        except ValidationError as error:
            first = error.errors()[0]
            path = ".".join(str(part) for part in first["loc"])
            raise RenderError(f"{_describe(index, document)}: {path}: {first['msg']}") from error
        except (BuildError, RenderError) as error:
            raise RenderError(f"{_describe(index, document)}: {error}") from error


def _without_repeats(objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each object once: a shared one (a model Service) is built identically by each owner."""
    kept: list[dict[str, Any]] = []
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for obj in objects:
        metadata = obj.get("metadata") or {}
        key = (
            obj.get("apiVersion"),
            obj.get("kind"),
            metadata.get("namespace"),
            metadata.get("name"),
        )
        if seen.get(key) == obj:
            continue
        seen.setdefault(key, obj)
        kept.append(obj)
    return kept


def render_objects(
    documents: Sequence[Mapping[str, Any]],
    settings: OperatorSettings,
    *,
    default_namespace: str = "default",
    planner_cluster_role_name: str | None = None,
) -> RenderResult:
    pull_secrets = build_pull_secret_index(documents, default_namespace=default_namespace)
    context = BuildContext(
        settings=settings, pull_secrets=pull_secrets, default_namespace=default_namespace
    )
    result = RenderResult()
    result.warnings.extend(
        f"{name}: malformed .dockerconfigjson, ignored for pull-secret discovery"
        for name in pull_secrets.skipped
    )
    components: list[Mapping[str, Any]] = []
    _for_each_document(
        documents, lambda document: components.extend(_components_of(document, context))
    )
    context = dataclasses.replace(
        context,
        model_service_owners=build_model_service_owners(
            components, default_namespace=default_namespace
        ),
    )
    discovering = [dcd for dcd in components if uses_kubernetes_discovery(dcd, settings)]
    result.objects.extend(
        _discovery_access(discovering, default_namespace, settings.discovery_cluster_role_name)
    )
    _for_each_document(
        documents,
        lambda document: _render_document(document, context, result, planner_cluster_role_name),
    )
    result.objects = _without_repeats(result.objects)
    return result


def _discovery_access(
    components: Iterable[Mapping[str, Any]], default_namespace: str, cluster_role_name: str | None
) -> list[dict[str, Any]]:
    """The discovery account of each namespace among the documents' components, and the
    account's RoleBinding (and Role, without ``cluster_role_name``)."""
    objects: list[dict[str, Any]] = []
    namespaces = {dcd["metadata"].get("namespace") or default_namespace for dcd in components}
    for namespace in sorted(namespaces):
        account = build_discovery_service_account(namespace)
        objects += [account, *build_discovery_access(namespace, account, cluster_role_name)]
    return objects
