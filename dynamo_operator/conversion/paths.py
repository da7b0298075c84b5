"""``beta_path``: where, in a v1beta1 object, the user wrote what a v1alpha1 field path names.

Validation runs on the v1alpha1 object a v1beta1 one converts to and reports v1alpha1 paths
(``spec.services.Frontend.envs[0].name``); a user who wrote v1beta1 needs the path in their
object (``spec.components[0].podTemplate.spec.containers[0].env[0].name``). Best effort: a part
that maps to nothing of v1beta1 (``ingress``, ``pvcs``) stops at the closest enclosing field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from dynamo_operator.constants import GPU_RESOURCE_NAME, MAIN_CONTAINER_NAME
from dynamo_operator.conversion.dispatch import ALPHA_API_VERSION, convert
from dynamo_operator.conversion.errors import ConversionError
from dynamo_operator.conversion.experimental import EXPERIMENTAL, EXPERIMENTAL_FIELDS
from dynamo_operator.conversion.wire import JsonDict, as_dict, as_list
from dynamo_operator.field_paths import PathPart, join_path

_TOKEN = re.compile(r"\[(\d+)\]|([^.\[]+)")
_SAME: Final = frozenset({"replicas", "multinode", "modelRef", "scalingAdapter"})


def beta_path(beta_obj: Mapping[str, Any], alpha_path: str) -> str:
    """The v1beta1 path of ``alpha_path`` (a path of ``convert(beta_obj, v1alpha1)``)."""
    try:
        alpha = convert(beta_obj, ALPHA_API_VERSION)
    except ConversionError:
        return alpha_path
    beta = dict(beta_obj)
    kind = beta.get("kind")
    if kind == "DynamoGraphDeploymentScalingAdapter":
        return alpha_path.replace("spec.dgdRef.serviceName", "spec.dgdRef.componentName", 1)
    if not alpha_path.startswith("spec"):
        return alpha_path
    alpha_spec = as_dict(alpha.get("spec")) or {}
    beta_spec = as_dict(beta.get("spec")) or {}
    if kind == "DynamoComponentDeployment":
        rest = _tokens(alpha_path[len("spec") :])
        return join_path("spec", *_component_path(alpha_spec, beta_spec, rest))
    return _graph_path(alpha_spec, beta_spec, alpha_path)


def _graph_path(alpha_spec: JsonDict, beta_spec: JsonDict, alpha_path: str) -> str:
    if alpha_path.startswith("spec.envs"):
        return "spec.env" + alpha_path[len("spec.envs") :]
    if not alpha_path.startswith("spec.services."):
        return alpha_path if alpha_path.startswith("spec.backendFramework") else "spec"
    services = as_dict(alpha_spec.get("services")) or {}
    remainder = alpha_path[len("spec.services.") :]
    # The longest service name the path starts with: names may hold dots.
    for name in sorted(services, key=len, reverse=True):
        if remainder == name or remainder.startswith((f"{name}.", f"{name}[")):
            components = as_list(beta_spec.get("components")) or []
            index = next(
                (
                    i
                    for i, c in enumerate(components)
                    if isinstance(c, dict) and c.get("name") == name
                ),
                None,
            )
            if index is None:
                return "spec.components"
            service = as_dict(services[name]) or {}
            rest = _tokens(remainder[len(name) :])
            return join_path(
                f"spec.components[{index}]", *_component_path(service, components[index], rest)
            )
    return "spec.components"


def _component_path(service: JsonDict, component: Any, rest: list[PathPart]) -> list[PathPart]:
    if not rest or not isinstance(component, dict):
        return []
    head, tail = rest[0], rest[1:]
    if head in _SAME:
        return rest
    if head in ("componentType", "subComponentType"):
        return ["type"]
    if head == "serviceName":
        return ["name"]
    if head == "sharedMemory":
        return ["sharedMemorySize"]
    if head == "extraPodMetadata":
        return ["podTemplate", "metadata", *tail]
    if head in EXPERIMENTAL_FIELDS:
        return [EXPERIMENTAL, *rest]
    containers = (
        as_list(
            (as_dict((as_dict(component.get("podTemplate")) or {}).get("spec")) or {}).get(
                "containers"
            )
        )
        or []
    )
    main = next(
        (
            i
            for i, c in enumerate(containers)
            if isinstance(c, dict) and c.get("name") == MAIN_CONTAINER_NAME
        ),
        None,
    )
    main_path: list[PathPart] = (
        ["podTemplate", "spec", "containers", main] if main is not None else ["podTemplate", "spec"]
    )
    user = as_dict((as_dict(service.get("extraPodSpec")) or {}).get("mainContainer")) or {}
    if head == "extraPodSpec":
        if tail[:1] == ["mainContainer"]:
            return [*main_path, *tail[1:]]
        if tail[:1] == ["containers"] and len(tail) > 1 and isinstance(tail[1], int):
            sidecars = as_list((as_dict(service.get("extraPodSpec")) or {}).get("containers")) or []
            name = (
                sidecars[tail[1]].get("name")
                if tail[1] < len(sidecars) and isinstance(sidecars[tail[1]], dict)
                else None
            )
            index = next(
                (
                    i
                    for i, c in enumerate(containers)
                    if isinstance(c, dict) and c.get("name") == name and i != main
                ),
                None,
            )
            return [
                "podTemplate",
                "spec",
                "containers",
                *([index, *tail[2:]] if index is not None else []),
            ]
        return ["podTemplate", "spec", *tail]
    if main is None:
        return []
    if head == "envs":
        offset = len(as_list(user.get("env")) or [])
        return [
            *main_path,
            "env",
            *([tail[0] + offset, *tail[1:]] if tail and isinstance(tail[0], int) else []),
        ]
    if head == "envFromSecret":
        env_from = as_list(containers[main].get("envFrom")) or []
        return [*main_path, "envFrom", len(env_from) - 1] if env_from else main_path
    if head in ("livenessProbe", "readinessProbe"):
        return [*main_path, *rest]
    if head == "resources":
        return [*main_path, "resources", *_resource_path(service, tail)]
    if head == "volumeMounts":
        return _mount_path(service, main_path, tail)
    return []


def _resource_path(service: JsonDict, tail: list[PathPart]) -> list[PathPart]:
    if len(tail) < 2 or tail[0] not in ("requests", "limits"):
        return tail
    side, key = tail[0], tail[1]
    if key == "custom":
        return [side, ".".join(str(part) for part in tail[2:])] if len(tail) > 2 else [side]
    if key in ("gpu", "gpuType"):
        item = as_dict((as_dict(service.get("resources")) or {}).get(side)) or {}
        gpu_type = item.get("gpuType")
        return [side, gpu_type if isinstance(gpu_type, str) and gpu_type else GPU_RESOURCE_NAME]
    return [side, key]


def _mount_path(
    service: JsonDict, main_path: list[PathPart], tail: list[PathPart]
) -> list[PathPart]:
    mounts = as_list(service.get("volumeMounts")) or []
    if not tail or not isinstance(tail[0], int) or tail[0] >= len(mounts):
        return [*main_path, "volumeMounts"]
    cache = next(
        (
            i
            for i, m in enumerate(mounts)
            if isinstance(m, dict) and m.get("useAsCompilationCache") is True
        ),
        None,
    )
    if tail[0] == cache:
        field = (
            {"name": ["pvcName"], "mountPoint": ["mountPath"]}.get(str(tail[1]))
            if len(tail) > 1
            else []
        )
        return ["compilationCache", *(field or [])]
    index = tail[0] - (1 if cache is not None and cache < tail[0] else 0)
    field = (
        {"mountPoint": ["mountPath"], "name": ["name"]}.get(str(tail[1]), [])
        if len(tail) > 1
        else []
    )
    return [*main_path, "volumeMounts", index, *field]


def _tokens(path: str) -> list[PathPart]:
    return [int(index) if index else key for index, key in _TOKEN.findall(path)]
