"""DynamoGraphDeployment: ``spec.services`` (a map) <-> ``spec.components`` (a list keyed by
name, sorted by name unless the residue restores another order), ``spec.envs`` <-> ``spec.env``,
``backendFramework`` as is. ``pvcs`` and ``dynamoComponent`` have no v1beta1 field: the residue
keeps them. Bodies are the object without apiVersion, kind and metadata.
"""

from __future__ import annotations

from typing import Final

from dynamo_operator.conversion.component import service_hints, to_component, to_service
from dynamo_operator.conversion.patch import Path
from dynamo_operator.conversion.sources import component_sources, service_sources
from dynamo_operator.conversion.status import graph_status_to_alpha, graph_status_to_beta
from dynamo_operator.conversion.wire import JsonDict, as_dict, copy_json, same

_ALPHA_TO_BETA_FIELDS: Final = {
    "services": "components",
    "envs": "env",
    "backendFramework": "backendFramework",
}
_BETA_TO_ALPHA_FIELDS: Final = {beta: alpha for alpha, beta in _ALPHA_TO_BETA_FIELDS.items()}


def graph_to_beta(body: JsonDict, metadata: JsonDict) -> JsonDict:
    converted: JsonDict = {}
    spec = as_dict(body.get("spec"))
    if spec is not None:
        beta: JsonDict = {}
        services = as_dict(spec.get("services"))
        if services is not None:
            beta["components"] = [
                to_component(name, service)
                for name, service in sorted(services.items())
                if isinstance(service, dict)
            ]
        if "envs" in spec:
            beta["env"] = copy_json(spec["envs"])
        if "backendFramework" in spec:
            beta["backendFramework"] = copy_json(spec["backendFramework"])
        converted["spec"] = beta
    if "status" in body:
        converted["status"] = graph_status_to_beta(body["status"])
    return converted


def graph_to_alpha(body: JsonDict, hints: JsonDict, metadata: JsonDict) -> JsonDict:
    converted: JsonDict = {}
    spec = as_dict(body.get("spec"))
    if spec is not None:
        alpha: JsonDict = {}
        components = spec.get("components")
        if isinstance(components, list):
            per_component = as_dict(hints.get("c")) or {}
            services: JsonDict = {}
            for component in components:
                name = component.get("name") if isinstance(component, dict) else None
                if isinstance(name, str) and name not in services:
                    services[name] = to_service(component, as_dict(per_component.get(name)) or {})
            alpha["services"] = services
            claims = _cache_claims(services)
            if claims and not hints.get("pvcs"):
                alpha["pvcs"] = claims
        if "env" in spec:
            alpha["envs"] = copy_json(spec["env"])
        if "backendFramework" in spec:
            alpha["backendFramework"] = copy_json(spec["backendFramework"])
        converted["spec"] = alpha
    if "status" in body:
        converted["status"] = graph_status_to_alpha(body["status"])
    return converted


def graph_alpha_hints(alpha: JsonDict, beta: JsonDict, metadata: JsonDict) -> JsonDict:
    services = as_dict((as_dict(alpha.get("spec")) or {}).get("services")) or {}
    components = (as_dict(beta.get("spec")) or {}).get("components") or []
    by_name = {c["name"]: c for c in components if isinstance(c, dict) and "name" in c}
    per_component: JsonDict = {}
    for name, service in services.items():
        if isinstance(service, dict) and name in by_name:
            placement = service_hints(service, by_name[name])
            if placement:
                per_component[name] = placement
    hints: JsonDict = {"c": per_component} if per_component else {}
    converted = as_dict(graph_to_alpha(beta, hints, metadata).get("spec")) or {}
    if "pvcs" in converted and not same(
        converted["pvcs"], (as_dict(alpha.get("spec")) or {}).get("pvcs")
    ):
        hints["pvcs"] = 1
    return hints


def _cache_claims(services: JsonDict) -> list[JsonDict]:
    """The claims compilation caches name, declared as existing claims: v1beta1 has no ``pvcs``
    (a cache names a claim the user created), v1alpha1 wants every mounted claim declared."""
    names: list[str] = []
    for service in services.values():
        for mount in service.get("volumeMounts") or ():
            name = mount.get("name")
            if (
                mount.get("useAsCompilationCache") is True
                and isinstance(name, str)
                and name not in names
            ):
                names.append(name)
    return [{"name": name, "create": False} for name in names]


def graph_beta_sources(alpha_path: Path) -> list[Path]:
    """The v1beta1 fields a v1alpha1 graph field is derived from."""
    if alpha_path[:1] != ["spec"] or len(alpha_path) < 2:
        return [["spec"]] if alpha_path == ["spec"] else []
    if alpha_path[1] == "services" and len(alpha_path) >= 3 and isinstance(alpha_path[2], str):
        prefix: Path = ["spec", "components", [alpha_path[2]]]
        return [[*prefix, *path] for path in component_sources(alpha_path[3:])]
    field = _ALPHA_TO_BETA_FIELDS.get(alpha_path[1]) if isinstance(alpha_path[1], str) else None
    return [["spec", field]] if field else []


def graph_alpha_sources(beta_path: Path) -> list[Path]:
    """The v1alpha1 fields a v1beta1 graph field is derived from."""
    if beta_path[:1] != ["spec"] or len(beta_path) < 2:
        return [["spec"]] if beta_path == ["spec"] else []
    step = beta_path[2] if len(beta_path) >= 3 else None
    if beta_path[1] == "components" and isinstance(step, list) and len(step) == 1:
        prefix: Path = ["spec", "services", step[0]]
        return [[*prefix, *path] for path in service_sources(beta_path[3:])]
    field = _BETA_TO_ALPHA_FIELDS.get(beta_path[1]) if isinstance(beta_path[1], str) else None
    return [["spec", field]] if field else []
