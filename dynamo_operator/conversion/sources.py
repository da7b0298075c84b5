"""Which fields of the other version a field is derived from: the guards of the residue's ops.

A residue op restores a field of version A that version B could not say as A said it. It is
guarded by the fields of B that A's field is derived from (its *sources*): when one of them was
edited at B, the op is skipped and the edit wins. Fields only one version has have no source and
are always restored. Paths are relative to one service (v1alpha1) or component (v1beta1).
"""

from __future__ import annotations

from typing import Final

from dynamo_operator.constants import MAIN_CONTAINER_NAME
from dynamo_operator.conversion.experimental import EXPERIMENTAL, EXPERIMENTAL_FIELDS
from dynamo_operator.conversion.patch import Path

MAIN: Final[Path] = ["podTemplate", "spec", "containers", [MAIN_CONTAINER_NAME]]
MAIN_CONTAINER: Final[Path] = ["extraPodSpec", "mainContainer"]
_SAME: Final = frozenset({"replicas", "multinode", "modelRef"})
_ALPHA_FROM_MAIN: Final[dict[str, Path]] = {
    "resources": [*MAIN, "resources"],
    "envs": [*MAIN, "env"],
    "envFromSecret": [*MAIN, "envFrom"],
    "livenessProbe": [*MAIN, "livenessProbe"],
    "readinessProbe": [*MAIN, "readinessProbe"],
}
_MAIN_FROM_ALPHA: Final[dict[str, list[Path]]] = {
    "env": [["envs"], [*MAIN_CONTAINER, "env"]],
    "envFrom": [["envFromSecret"], [*MAIN_CONTAINER, "envFrom"]],
    "resources": [["resources"], [*MAIN_CONTAINER, "resources"]],
    "livenessProbe": [["livenessProbe"], [*MAIN_CONTAINER, "livenessProbe"]],
    "readinessProbe": [["readinessProbe"], [*MAIN_CONTAINER, "readinessProbe"]],
    "volumeMounts": [["volumeMounts"], [*MAIN_CONTAINER, "volumeMounts"]],
}
_WHOLE_POD: Final[list[Path]] = [
    ["extraPodSpec"],
    ["extraPodMetadata"],
    *(p for paths in _MAIN_FROM_ALPHA.values() for p in paths[:1]),
]


def component_sources(service_path: Path) -> list[Path]:
    """The v1beta1 component fields a v1alpha1 service field is derived from."""
    if not service_path:
        return [[]]
    head = service_path[0]
    if head in ("componentType", "subComponentType"):
        return [["type"]]
    if head == "serviceName":
        return [["name"]]
    if head == "sharedMemory":
        return [["sharedMemorySize"]]
    if head in _SAME or head == "scalingAdapter":
        return [[head]]
    if head == "volumeMounts":
        return [["compilationCache"], [*MAIN, "volumeMounts"]]
    if isinstance(head, str) and head in _ALPHA_FROM_MAIN:
        return [_ALPHA_FROM_MAIN[head]]
    if head == "extraPodMetadata":
        return [["podTemplate", "metadata", *service_path[1:2]]]
    if head == "extraPodSpec":
        if len(service_path) == 1:
            return [["podTemplate", "spec"]]
        if service_path[1] == "mainContainer":
            return [[*MAIN, *service_path[2:3]]]
        return [["podTemplate", "spec", service_path[1]]]
    if head in EXPERIMENTAL_FIELDS:
        return [[EXPERIMENTAL, head]]
    return []


def service_sources(component_path: Path) -> list[Path]:
    """The v1alpha1 service fields a v1beta1 component field is derived from."""
    if not component_path:
        return [[]]
    head, rest = component_path[0], component_path[1:]
    if head == "type":
        return [["componentType"], ["subComponentType"]]
    if head == "name":
        return [["serviceName"]]
    if head == "sharedMemorySize":
        return [["sharedMemory"]]
    if head in _SAME or head == "scalingAdapter":
        return [[head]]
    if head == "compilationCache":
        return [["volumeMounts"]]
    if head == EXPERIMENTAL:
        if rest and rest[0] in EXPERIMENTAL_FIELDS:
            return [[rest[0]]]
        return [] if rest else [[name] for name in EXPERIMENTAL_FIELDS]
    if head != "podTemplate":
        return []
    if not rest:
        return _WHOLE_POD
    if rest[0] == "metadata":
        if len(rest) == 1:
            return [["extraPodMetadata"]]
        return [["extraPodMetadata", rest[1]]] if rest[1] in ("labels", "annotations") else []
    if rest[0] != "spec":
        return []
    if len(rest) == 1:
        return _WHOLE_POD
    if rest[1] != "containers":
        return [["extraPodSpec", rest[1]]]
    if len(rest) < 3 or rest[2] != [MAIN_CONTAINER_NAME]:
        return _WHOLE_POD if len(rest) < 3 else [["extraPodSpec", "containers"]]
    if len(rest) == 3:
        return _WHOLE_POD
    field = rest[3]
    if isinstance(field, str) and field in _MAIN_FROM_ALPHA:
        return _MAIN_FROM_ALPHA[field]
    return [[*MAIN_CONTAINER, field]]
