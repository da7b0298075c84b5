"""Rules for DynamoComponentDeployment: the shared service rules plus its own generated names.

``backendFramework`` cannot change once set; setting it where it was unset is allowed (a graph
declares on its components the backend its workers launch, also on the components it generated
before it did so; upstream's webhook refuses that update). A declared ``dynamoNamespace`` is
honoured with a deprecation warning, unless a graph generated the component (the graph is warned).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import KIND_GRAPH_DEPLOYMENT, DynamoComponentDeployment
from dynamo_operator.constants import Labels
from dynamo_operator.field_paths import describe
from dynamo_operator.naming import default_dynamo_namespace
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.component import check_component_reference
from dynamo_operator.validation.names import (
    check_component_names,
    check_dynamo_namespace,
    deprecated_dynamo_namespace,
)
from dynamo_operator.validation.result import IssueReason
from dynamo_operator.validation.service import (
    check_backend,
    check_multinode_image,
    validate_service,
)
from dynamo_operator.validation.service_pvc import check_no_service_pvc
from dynamo_operator.validation.wire import differs, spec_of


def validate_component_deployment(
    component: DynamoComponentDeployment, issues: IssueCollector
) -> None:
    spec = component.spec
    backend = check_backend(spec, spec.backend_framework, issues, "spec")
    # A standalone DCD mounts claims that already exist; there is no pvcs list to check against.
    validate_service(spec, "spec", backend, None, issues)
    check_no_service_pvc(spec, "spec", issues)
    if spec.dynamo_component is not None:
        check_component_reference(issues, "spec.dynamoComponent", spec.dynamo_component)
    else:  # with an artifact, its built image runs
        check_multinode_image(spec, "spec", issues)
    if component.metadata.name:
        check_component_names(
            issues,
            "metadata.name",
            component.metadata.name,
            spec.effective_replicas,
            spec.node_count,
        )
    if spec.dynamo_namespace:
        check_dynamo_namespace(issues, "spec.dynamoNamespace", spec.dynamo_namespace, declared=True)
        if not _generated_by_graph(component):
            graph = (component.metadata.labels or {}).get(Labels.GRAPH_DEPLOYMENT_NAME)
            derived = default_dynamo_namespace(
                component.metadata.namespace or "<namespace>",
                graph or component.metadata.name or "<name>",
            )
            issues.warn(
                "spec.dynamoNamespace", deprecated_dynamo_namespace(spec.dynamo_namespace, derived)
            )


def _generated_by_graph(component: DynamoComponentDeployment) -> bool:
    """A graph's component carries the graph's Dynamo namespace (warned about on the graph)."""
    return any(
        reference.get("kind") == KIND_GRAPH_DEPLOYMENT and reference.get("controller")
        for reference in component.metadata.owner_references or ()
    )


def validate_component_deployment_update(
    new: Mapping[str, Any], old: Mapping[str, Any], issues: IssueCollector
) -> None:
    old_backend = spec_of(old).get("backendFramework")
    new_backend = spec_of(new).get("backendFramework")
    if old_backend not in (None, "") and differs(old_backend, new_backend):
        issues.error(
            "spec.backendFramework",
            f"is immutable (was {describe(old_backend)}, now {describe(new_backend)})",
            IssueReason.IMMUTABLE_FIELD_CHANGED,
        )
