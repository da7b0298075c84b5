"""One v1alpha1 service <-> one v1beta1 component (an entry of ``spec.components``, or the inline
spec of a component deployment), without the residue: ``to_component`` (v1alpha1 -> v1beta1) and
``to_service`` (back, guided by placement hints), plus ``service_hints``, the hints a v1alpha1
service needs to come back exactly.

Fields v1alpha1 alone has (``annotations``, ``labels``, ``dynamoNamespace``, ``autoscaling``,
``ingress``, ``pvc``, ``serviceName``...) are not mapped here: the residue patch restores them.
"""

from __future__ import annotations

from typing import Any, Final

from dynamo_operator.constants import MAIN_CONTAINER_NAME
from dynamo_operator.conversion.experimental import experimental_to_alpha, experimental_to_beta
from dynamo_operator.conversion.main_container import build_main, main_hints, split_main
from dynamo_operator.conversion.wire import JsonDict, as_dict, as_list, copy_json

BETA_TYPES: Final = frozenset({"frontend", "worker", "prefill", "decode", "planner", "epp"})
_SPLIT_TYPES: Final = frozenset({"prefill", "decode"})
_SAME_FIELDS: Final = ("replicas", "multinode", "modelRef")
_POD_METADATA_FIELDS: Final = ("labels", "annotations")
DISABLED_SHARED_MEMORY: Final = "0"


def beta_type(component_type: Any, sub_component_type: Any) -> str | None:
    """v1beta1 ``type`` of a v1alpha1 (componentType, subComponentType) pair, if it maps."""
    if component_type == "worker" and _is_split_type(sub_component_type):
        return str(sub_component_type)
    if isinstance(component_type, str) and component_type in BETA_TYPES:
        return component_type
    return None


def _is_split_type(value: Any) -> bool:
    """prefill or decode; False for anything else, a value of another type included."""
    return isinstance(value, str) and value in _SPLIT_TYPES


def to_component(name: Any, service: JsonDict) -> JsonDict:
    component: JsonDict = {} if name is None else {"name": name}
    kind = beta_type(service.get("componentType"), service.get("subComponentType"))
    if kind is not None:
        component["type"] = kind
    for key in _SAME_FIELDS:
        if key in service:
            component[key] = copy_json(service[key])
    adapter = as_dict(service.get("scalingAdapter"))
    if adapter is not None and adapter.get("enabled") is True:
        component["scalingAdapter"] = {}
    shared_memory = as_dict(service.get("sharedMemory"))
    if shared_memory is not None:
        if shared_memory.get("disabled") is True:
            component["sharedMemorySize"] = DISABLED_SHARED_MEMORY
        elif shared_memory.get("size") is not None:
            component["sharedMemorySize"] = copy_json(shared_memory["size"])
    cache, _, pvc_mounts = _split_alpha_mounts(service)
    if cache is not None:
        component["compilationCache"] = cache
    pod_template = _pod_template(service, build_main(service, pvc_mounts))
    if pod_template is not None:
        component["podTemplate"] = pod_template
    component.update(experimental_to_beta(service))
    return component


def to_service(component: JsonDict, hints: JsonDict) -> JsonDict:
    service: JsonDict = {}
    kind = component.get("type")
    if _is_split_type(kind):
        service.update(componentType="worker", subComponentType=kind)
    elif isinstance(kind, str) and kind in BETA_TYPES:
        service["componentType"] = kind
    for key in _SAME_FIELDS:
        if key in component:
            service[key] = copy_json(component[key])
    if "scalingAdapter" in component:
        service["scalingAdapter"] = {"enabled": True}
    size = component.get("sharedMemorySize")
    if size is not None:
        disabled = size == DISABLED_SHARED_MEMORY or (type(size) is int and size == 0)
        service["sharedMemory"] = {"disabled": True} if disabled else {"size": copy_json(size)}
    pvc_mounts: list[JsonDict] = []
    pod_template = as_dict(component.get("podTemplate"))
    if pod_template is not None:
        fields, pvc_mounts = _from_pod_template(pod_template, hints)
        service.update(fields)
    mounts = _alpha_mounts(as_dict(component.get("compilationCache")), pvc_mounts, hints)
    if mounts:
        service["volumeMounts"] = mounts
    service.update(experimental_to_alpha(component))
    return service


def service_hints(service: JsonDict, component: JsonDict) -> JsonDict:
    """Placement hints ``to_service`` needs to rebuild ``service`` from ``component``."""
    _, cache_at, pvc_mounts = _split_alpha_mounts(service)
    pvc_names = [m["name"] for m in pvc_mounts if isinstance(m.get("name"), str)]
    hints = main_hints(service, _main_of(component), pvc_names)
    if cache_at:
        hints["cacheAt"] = cache_at
    return hints


def _split_alpha_mounts(service: JsonDict) -> tuple[JsonDict | None, int, list[JsonDict]]:
    """(compilationCache, index of its mount among the mounts, the other mounts as v1beta1)."""
    cache: JsonDict | None = None
    cache_at = 0
    pvc_mounts: list[JsonDict] = []
    mounts = [m for m in as_list(service.get("volumeMounts")) or () if isinstance(m, dict)]
    for index, mount in enumerate(mounts):
        if cache is None and mount.get("useAsCompilationCache") is True:
            cache, cache_at = {}, index
            if "name" in mount:
                cache["pvcName"] = copy_json(mount["name"])
            if mount.get("mountPoint") is not None:
                cache["mountPath"] = copy_json(mount["mountPoint"])
            continue
        converted: JsonDict = {}
        if "name" in mount:
            converted["name"] = copy_json(mount["name"])
        if mount.get("mountPoint") is not None:
            converted["mountPath"] = copy_json(mount["mountPoint"])
        pvc_mounts.append(converted)
    return cache, cache_at, pvc_mounts


def _alpha_mounts(
    cache: JsonDict | None, pvc_mounts: list[JsonDict], hints: JsonDict
) -> list[JsonDict]:
    mounts = list(pvc_mounts)
    if cache is not None:
        mount: JsonDict = {}
        if "pvcName" in cache:
            mount["name"] = copy_json(cache["pvcName"])
        if "mountPath" in cache:
            mount["mountPoint"] = copy_json(cache["mountPath"])
        mount["useAsCompilationCache"] = True
        at = hints.get("cacheAt")
        at = at if isinstance(at, int) and not isinstance(at, bool) and at > 0 else 0
        mounts.insert(min(at, len(mounts)), mount)
    return mounts


def _pod_template(service: JsonDict, main: JsonDict | None) -> JsonDict | None:
    pod_spec = as_dict(service.get("extraPodSpec"))
    metadata = as_dict(service.get("extraPodMetadata"))
    spec: JsonDict | None = None
    if pod_spec is not None:
        spec = {k: copy_json(v) for k, v in pod_spec.items() if k != "mainContainer"}
    if main is not None:
        spec = spec if spec is not None else {}
        spec["containers"] = [main, *(as_list(spec.get("containers")) or [])]
    template: JsonDict = {}
    if metadata is not None:
        template["metadata"] = copy_json(metadata)
    if spec is not None:
        template["spec"] = spec
    return template or None


def _from_pod_template(template: JsonDict, hints: JsonDict) -> tuple[JsonDict, list[JsonDict]]:
    service: JsonDict = {}
    metadata = as_dict(template.get("metadata"))
    if metadata is not None:
        kept = {k: copy_json(metadata[k]) for k in _POD_METADATA_FIELDS if k in metadata}
        if kept or not metadata:
            service["extraPodMetadata"] = kept
    spec = as_dict(template.get("spec"))
    if spec is None:
        return service, []
    pod_spec = {
        k: copy_json(v) for k, v in spec.items() if k not in ("containers", "mainContainer")
    }
    pvc_mounts: list[JsonDict] = []
    containers = spec.get("containers")
    main_index = _main_index(containers)
    if isinstance(containers, list):
        sidecars = [copy_json(c) for i, c in enumerate(containers) if i != main_index]
        if sidecars:
            pod_spec["containers"] = sidecars
    elif containers is not None:
        pod_spec["containers"] = copy_json(containers)
    if main_index is not None and isinstance(containers, list):
        main = containers[main_index]
        fields, user, pvc_mounts = split_main(main, hints)
        service.update(fields)
        if user or len(main) == 1:
            pod_spec["mainContainer"] = user
    if pod_spec or main_index is None:
        service["extraPodSpec"] = pod_spec
    return service, pvc_mounts


def _main_index(containers: Any) -> int | None:
    if not isinstance(containers, list):
        return None
    for index, container in enumerate(containers):
        if isinstance(container, dict) and container.get("name") == MAIN_CONTAINER_NAME:
            return index
    return None


def _main_of(component: JsonDict) -> JsonDict | None:
    spec = as_dict((as_dict(component.get("podTemplate")) or {}).get("spec"))
    containers = spec.get("containers") if spec else None
    index = _main_index(containers)
    return None if index is None else containers[index]  # type: ignore[index]
