"""DynamoComponentDeployment: the v1beta1 spec is ``backendFramework`` plus one component inline.

``name`` comes from ``spec.serviceName``, else from ``metadata.name`` (then the residue remembers
that ``serviceName`` was absent, so the way back is exact). ``dynamoComponent`` and ``dynamoTag``
have no v1beta1 field: the residue keeps them.
"""

from __future__ import annotations

from typing import Final

from dynamo_operator.conversion.component import service_hints, to_component, to_service
from dynamo_operator.conversion.patch import Path
from dynamo_operator.conversion.sources import component_sources, service_sources
from dynamo_operator.conversion.status import (
    component_status_to_alpha,
    component_status_to_beta,
)
from dynamo_operator.conversion.wire import JsonDict, as_dict, copy_json

_BACKEND: Final = "backendFramework"
_ALPHA_ONLY: Final = frozenset({"dynamoComponent", "dynamoTag"})


def component_deployment_to_beta(body: JsonDict, metadata: JsonDict) -> JsonDict:
    converted: JsonDict = {}
    spec = as_dict(body.get("spec"))
    if spec is not None:
        name = spec.get("serviceName")
        if not (isinstance(name, str) and name):
            name = metadata.get("name")
        beta = to_component(name, spec)
        if _BACKEND in spec:
            beta[_BACKEND] = copy_json(spec[_BACKEND])
        converted["spec"] = beta
    if "status" in body:
        converted["status"] = component_status_to_beta(body["status"])
    return converted


def component_deployment_to_alpha(body: JsonDict, hints: JsonDict, metadata: JsonDict) -> JsonDict:
    converted: JsonDict = {}
    spec = as_dict(body.get("spec"))
    if spec is not None:
        alpha = to_service(spec, hints)
        if "name" in spec:
            alpha["serviceName"] = copy_json(spec["name"])
        if _BACKEND in spec:
            alpha[_BACKEND] = copy_json(spec[_BACKEND])
        converted["spec"] = alpha
    if "status" in body:
        converted["status"] = component_status_to_alpha(body["status"])
    return converted


def component_deployment_alpha_hints(
    alpha: JsonDict, beta: JsonDict, metadata: JsonDict
) -> JsonDict:
    spec, beta_spec = as_dict(alpha.get("spec")), as_dict(beta.get("spec"))
    if spec is None or beta_spec is None:
        return {}
    return service_hints(spec, beta_spec)


def component_deployment_beta_sources(alpha_path: Path) -> list[Path]:
    if alpha_path[:1] != ["spec"]:
        return []
    if alpha_path[1:2] == [_BACKEND]:
        return [["spec", _BACKEND]]
    if alpha_path[1:2] and isinstance(alpha_path[1], str) and alpha_path[1] in _ALPHA_ONLY:
        return []
    return [["spec", *path] for path in component_sources(alpha_path[1:])]


def component_deployment_alpha_sources(beta_path: Path) -> list[Path]:
    if beta_path[:1] != ["spec"]:
        return []
    if beta_path[1:2] == [_BACKEND]:
        return [["spec", _BACKEND]]
    return [["spec", *path] for path in service_sources(beta_path[1:])]
