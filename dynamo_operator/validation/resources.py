"""A service's resources, checked as the API server checks the main container they produce.

``spec.resources`` speaks in ``cpu``/``memory``/``gpu``/``custom`` and ``mainContainer.resources``
in Kubernetes resource names; the builders merge both into the container, so the rules that span
the two sides (a request within its limit; an extended resource such as ``nvidia.com/gpu`` with a
limit, equal to its request) are checked on that merged container, exactly what the API server
will see. ``container_amounts`` restates the builders' merge (``builders/resources.py``) for the
amounts alone; a test holds the two to the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dynamo_operator.api import DynamoComponentDeploymentSharedSpec, ResourceItem, Resources
from dynamo_operator.constants import GPU_RESOURCE_NAME
from dynamo_operator.field_paths import join_path
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.pod_spec import main_container_of
from dynamo_operator.validation.quantities import (
    is_native_resource,
    parse_quantity,
    resource_name_problem,
)
from dynamo_operator.validation.result import IssueReason
from dynamo_operator.validation.shapes import quantity


def check_resources(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    resources = service.resources
    resources_path = join_path(path, "resources")
    errors_before = issues.error_count
    for side in ("requests", "limits"):
        item = getattr(resources, side) if resources is not None else None
        if item is not None:
            _check_item(item, join_path(resources_path, side), issues)
    container_resources = main_container_of(service).get("resources")
    if issues.error_count > errors_before or not _well_formed(container_resources):
        return  # what is malformed is reported already (here or by pod_spec)
    merged = container_amounts(resources, container_resources)
    _check_requests_within_limits(merged, resources_path, issues)


def container_amounts(
    resources: Resources | None, container_resources: Mapping[str, Any] | None
) -> dict[str, dict[str, Any]]:
    """``requests`` and ``limits`` of the main container: ``mainContainer.resources`` with the
    service's amounts over it (``gpu`` under ``gpuType``, else ``nvidia.com/gpu``)."""
    merged: dict[str, dict[str, Any]] = {}
    for side in ("requests", "limits"):
        amounts = dict((container_resources or {}).get(side) or {})
        item: ResourceItem | None = getattr(resources, side) if resources is not None else None
        if item is not None:
            named = {
                "cpu": item.cpu,
                "memory": item.memory,
                item.gpu_type or GPU_RESOURCE_NAME: item.gpu,
            }
            amounts.update({name: amount for name, amount in named.items() if amount})
            amounts.update(item.custom or {})
        if amounts:
            merged[side] = amounts
    return merged


def _well_formed(container_resources: Any) -> bool:
    if container_resources is None:
        return True
    if not isinstance(container_resources, Mapping):
        return False
    sides_ok = all(
        isinstance(container_resources.get(side), Mapping | None) for side in ("requests", "limits")
    )
    claims = container_resources.get("claims")
    claims_ok = claims is None or (
        isinstance(claims, list) and all(isinstance(claim, Mapping) for claim in claims)
    )
    return sides_ok and claims_ok


def _check_item(item: ResourceItem, path: str, issues: IssueCollector) -> None:
    gpu_name = item.gpu_type or GPU_RESOURCE_NAME
    if item.gpu_type is not None:
        problem = resource_name_problem(item.gpu_type)
        if problem is not None:
            issues.error(join_path(path, "gpuType"), problem, IssueReason.INVALID_NAME)
    amounts: list[tuple[str, str, str | None]] = [
        ("cpu", "cpu", item.cpu),
        ("memory", "memory", item.memory),
        ("gpu", gpu_name, item.gpu),
    ]
    for name, custom_amount in (item.custom or {}).items():
        problem = resource_name_problem(name)
        if problem is not None:
            issues.error(join_path(path, "custom", name), problem, IssueReason.INVALID_NAME)
        amounts.append((f"custom.{name}", name, custom_amount))
    for field, resource, amount in amounts:
        if amount is not None:
            check = quantity(whole=not is_native_resource(resource))
            check(amount, join_path(path, *field.split(".", 1)), issues)


def _check_requests_within_limits(
    merged: Mapping[str, Any], path: str, issues: IssueCollector
) -> None:
    requests = _amounts(merged.get("requests"))
    limits = _amounts(merged.get("limits"))
    for name in sorted(requests.keys() | limits.keys()):
        request, limit = requests.get(name), limits.get(name)
        if is_native_resource(name):
            if request is not None and limit is not None and request > limit:
                issues.error(
                    path,
                    f"the request for {name} ({_text(merged, 'requests', name)}) exceeds its "
                    f"limit ({_text(merged, 'limits', name)})",
                )
        elif limit is None:
            issues.error(
                path,
                f"{name} is requested ({_text(merged, 'requests', name)}) without a limit, which "
                "Kubernetes refuses for an extended resource: give the amount as a limit instead "
                "(limits.gpu for GPUs, limits.custom for others); the request defaults to it",
            )
        elif request is not None and request != limit:
            issues.error(
                path,
                f"the request for {name} ({_text(merged, 'requests', name)}) must equal its "
                f"limit ({_text(merged, 'limits', name)}) for an extended resource",
            )


def _amounts(side: Any) -> dict[str, Decimal]:
    if not isinstance(side, Mapping):
        return {}
    parsed = {str(name): parse_quantity(str(amount)) for name, amount in side.items()}
    return {name: amount for name, amount in parsed.items() if amount is not None}


def _text(merged: Mapping[str, Any], side: str, name: str) -> str:
    return str(merged[side][name])
