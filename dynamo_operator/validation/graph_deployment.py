"""Rules for DynamoGraphDeployment: the object alone on create, and against its old self on update.

A graph must be renderable: names of generated children valid, mounts pointing at declared PVCs,
one Dynamo namespace for all services, one backend (``backendFramework``, else the one its workers
launch, which every generated component then declares), an image for each multinode service
(unless an artifact provides it), a ``DYN_DEPLOYMENT_CONFIG`` the operator can read. Rules run in
the upstream operator's order (at least one service, then the PVCs, then each service through the
shared service validator), so a user sees the issues in the order upstream reports them; the
checks upstream lacks (generated names, one Dynamo namespace) come last. A service's deprecated
``dynamoNamespace`` is still honoured, with a warning saying what upstream does instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import (
    BackendFramework,
    DynamoComponentDeploymentSharedSpec,
    DynamoGraphDeployment,
)
from dynamo_operator.backend_inference import worker_backends
from dynamo_operator.field_paths import describe, join_path
from dynamo_operator.naming import (
    component_deployment_name,
    component_resource_name,
    default_dynamo_namespace,
)
from dynamo_operator.validation.annotations import check_discovery_backend
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.component import (
    check_component_reference,
    check_component_resource_name,
)
from dynamo_operator.validation.deployment_config import check_deployment_configs
from dynamo_operator.validation.names import (
    check_component_names,
    check_dynamo_namespace,
    check_pvc_name,
    deprecated_dynamo_namespace,
)
from dynamo_operator.validation.result import IssueReason
from dynamo_operator.validation.service import (
    check_backend,
    check_multinode_image,
    validate_service,
)
from dynamo_operator.validation.service_pvc import check_service_pvc
from dynamo_operator.validation.shapes import positive_quantity
from dynamo_operator.validation.wire import differs, node_count_of, spec_of

DEFAULT_NAMESPACE = "default"


def validate_graph_deployment(graph: DynamoGraphDeployment, issues: IssueCollector) -> None:
    spec = graph.spec
    if spec.dynamo_component is not None:
        _check_artifact(spec.dynamo_component, issues)
    elif not spec.services:
        # With an artifact the services come from it; the map only overrides them.
        issues.error("spec.services", "must have at least one service")
    declared_pvcs = _check_pvcs(graph, issues)
    service_claims = {s.pvc.name for s in spec.services.values() if s.pvc is not None}
    graph_backend = spec.backend_framework or _workers_backend(graph, issues)
    for service_name, service in spec.services.items():
        path = join_path("spec.services", service_name)
        _check_backend_not_per_service(service, path, issues)
        backend = check_backend(
            service, graph_backend, issues, path, inferred=spec.backend_framework is None
        )
        validate_service(service, path, backend, declared_pvcs | service_claims, issues)
        check_service_pvc(service, path, declared_pvcs, issues)
        if spec.dynamo_component is None:  # else the artifact's built image runs
            check_multinode_image(service, path, issues)
    check_discovery_backend(graph.metadata.annotations, "metadata.annotations", issues)
    check_deployment_configs(graph, issues)
    _check_generated_names(graph, issues)
    _check_dynamo_namespace(graph, issues)


def validate_graph_deployment_update(
    new: Mapping[str, Any], old: Mapping[str, Any], issues: IssueCollector
) -> None:
    """Stateful rules, read from the wire form so that an old object stored before a rule existed
    (and that would no longer parse) cannot block every later update."""
    new_spec, old_spec = spec_of(new), spec_of(old)
    old_backend, new_backend = old_spec.get("backendFramework"), new_spec.get("backendFramework")
    if differs(old_backend, new_backend):
        issues.error(
            "spec.backendFramework",
            f"is immutable (was {describe(old_backend)}, now {describe(new_backend)})",
            IssueReason.IMMUTABLE_FIELD_CHANGED,
        )
    old_services, new_services = old_spec.get("services"), new_spec.get("services")
    if not isinstance(old_services, Mapping) or not isinstance(new_services, Mapping):
        return
    for name in new_services.keys() & old_services.keys():
        was_multinode = node_count_of(old_services[name]) > 1
        if was_multinode != (node_count_of(new_services[name]) > 1):
            before, after = (
                ("multinode", "single-node") if was_multinode else ("single-node", "multinode")
            )
            issues.error(
                join_path("spec.services", name, "multinode"),
                f"cannot change node topology from {before} to {after} after creation; "
                "delete and recreate the service",
                IssueReason.IMMUTABLE_FIELD_CHANGED,
            )


def _check_artifact(reference: str, issues: IssueCollector) -> None:
    if check_component_reference(issues, "spec.dynamoComponent", reference):
        check_component_resource_name(
            issues, "spec.dynamoComponent", component_resource_name(reference)
        )


def _workers_backend(
    graph: DynamoGraphDeployment, issues: IssueCollector
) -> BackendFramework | None:
    """The backend a graph without ``backendFramework`` declares on every component it generates:
    the one its workers launch (``builders.generated_backend``, as upstream); several are
    refused."""
    found = worker_backends(
        (
            name,
            service.component_type,
            service.extra_pod_spec.main_container if service.extra_pod_spec else None,
        )
        for name, service in sorted(graph.spec.services.items())
    )
    if len(set(found.values())) > 1:
        launches = ", ".join(f"{name} {backend}" for name, backend in found.items())
        issues.error(
            "spec.backendFramework",
            f"unset, and the workers launch different backends ({launches}): the components "
            "of a graph run one backend",
        )
        return None
    return next(iter(found.values()), None)


def _check_backend_not_per_service(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    # Not a field of a graph's service, but one of the component deployment it becomes: left
    # there, it would reach that DCD (and be refused there, or pick its backend) unvalidated.
    if "backendFramework" in (service.model_extra or {}):
        issues.error(
            join_path(path, "backendFramework"),
            "is set for the whole graph (spec.backendFramework), not per service",
        )


def _check_pvcs(graph: DynamoGraphDeployment, issues: IssueCollector) -> set[str]:
    names: set[str] = set()
    for index, pvc in enumerate(graph.spec.pvcs or ()):
        path = join_path("spec.pvcs", index, "name")
        if pvc.name in names:
            issues.error(path, f"duplicate PVC '{pvc.name}'")
        names.add(pvc.name)
        check_pvc_name(issues, path, pvc.name)
        if pvc.size is not None:
            # The API server refuses a claim that requests no storage.
            positive_quantity(pvc.size, join_path("spec.pvcs", index, "size"), issues)
    return names


def _check_generated_names(graph: DynamoGraphDeployment, issues: IssueCollector) -> None:
    graph_name = graph.metadata.name
    if not graph_name:
        if not graph.metadata.generate_name:
            issues.error(
                "metadata.name", "required field is missing", IssueReason.MISSING_REQUIRED_FIELD
            )
        return
    owners: dict[str, str] = {}
    for service_name, service in graph.spec.services.items():
        path = join_path("spec.services", service_name)
        component_name = component_deployment_name(graph_name, service_name)
        if component_name in owners:
            issues.error(
                path,
                f"generates the same component name '{component_name}' as service "
                f"'{owners[component_name]}'",
                IssueReason.INVALID_NAME,
            )
        owners.setdefault(component_name, service_name)
        check_component_names(
            issues, path, component_name, service.effective_replicas, service.node_count
        )


def _check_dynamo_namespace(graph: DynamoGraphDeployment, issues: IssueCollector) -> None:
    declared = {
        name: service.dynamo_namespace
        for name, service in graph.spec.services.items()
        if service.dynamo_namespace
    }
    distinct = sorted(set(declared.values()))
    if len(distinct) > 1:
        first_value = next(iter(declared.values()))
        for name, value in declared.items():
            if value != first_value:
                issues.error(
                    join_path("spec.services", name, "dynamoNamespace"),
                    f"'{value}' differs from '{first_value}'; all services of a graph share "
                    "one Dynamo namespace",
                )
        return
    if distinct:
        namespace = graph.metadata.namespace or DEFAULT_NAMESPACE
        derived = default_dynamo_namespace(namespace, graph.metadata.name or "<graph>")
        for name, value in declared.items():
            path = join_path("spec.services", name, "dynamoNamespace")
            check_dynamo_namespace(issues, path, value, declared=True)
            issues.warn(path, deprecated_dynamo_namespace(value, derived))
        return
    if graph.metadata.name:
        namespace = graph.metadata.namespace or DEFAULT_NAMESPACE
        derived = default_dynamo_namespace(namespace, graph.metadata.name)
        check_dynamo_namespace(issues, "metadata.name", derived, declared=False)
