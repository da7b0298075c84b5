"""Translate the component's ``resources`` into a container's ``resources``.

``gpu`` becomes ``nvidia.com/gpu`` (or ``gpuType`` when set), ``custom`` keys are raw resource
names. Unlike upstream v0.7, ``requests.gpu`` is translated too instead of being silently dropped.
Keys from the component override the same keys from ``mainContainer.resources``; claims are added.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.builders.merge import JsonDict, copy_json, merge_named
from dynamo_operator.constants import GPU_RESOURCE_NAME


def resource_amounts(item: Mapping[str, Any] | None) -> dict[str, str]:
    """One side (requests or limits) of a component's resources as Kubernetes resource names."""
    if not item:
        return {}
    amounts: dict[str, str] = {}
    for key in ("cpu", "memory"):
        if item.get(key) not in (None, ""):
            amounts[key] = str(item[key])
    if item.get("gpu") not in (None, ""):
        amounts[str(item.get("gpuType") or GPU_RESOURCE_NAME)] = str(item["gpu"])
    for name, amount in sorted((item.get("custom") or {}).items()):
        amounts[name] = str(amount)
    return amounts


def build_container_resources(
    spec_resources: Mapping[str, Any] | None, container_resources: Mapping[str, Any] | None
) -> JsonDict:
    merged: JsonDict = copy_json(dict(container_resources or {}))
    spec_resources = spec_resources or {}
    for side in ("requests", "limits"):
        amounts = resource_amounts(spec_resources.get(side))
        if amounts:
            merged[side] = {**(merged.get(side) or {}), **amounts}
    if spec_resources.get("claims"):
        merged["claims"] = merge_named(merged.get("claims"), spec_resources["claims"])
    return merged


def gpus_per_node(spec_resources: Mapping[str, Any] | None) -> int:
    """GPUs each pod of the component gets: ``limits.gpu``, else ``requests.gpu``, else 0."""
    spec_resources = spec_resources or {}
    for side in ("limits", "requests"):
        gpu = (spec_resources.get(side) or {}).get("gpu")
        if gpu not in (None, ""):
            try:
                return int(str(gpu))
            except ValueError:
                return 0
    return 0
