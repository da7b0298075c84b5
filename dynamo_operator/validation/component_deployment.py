"""Rules for DynamoComponentDeployment: the shared service rules plus its own generated names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import DynamoComponentDeployment
from dynamo_operator.field_paths import describe
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.component import check_component_reference
from dynamo_operator.validation.names import check_component_names, check_dynamo_namespace
from dynamo_operator.validation.result import IssueReason
from dynamo_operator.validation.service import check_backend, validate_service
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


def validate_component_deployment_update(
    new: Mapping[str, Any], old: Mapping[str, Any], issues: IssueCollector
) -> None:
    old_backend = spec_of(old).get("backendFramework")
    new_backend = spec_of(new).get("backendFramework")
    if differs(old_backend, new_backend):
        issues.error(
            "spec.backendFramework",
            f"is immutable (was {describe(old_backend)}, now {describe(new_backend)})",
            IssueReason.IMMUTABLE_FIELD_CHANGED,
        )
