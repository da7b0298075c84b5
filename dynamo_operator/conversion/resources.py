"""Resources: v1alpha1's ``resources`` (cpu, memory, gpu + gpuType, custom, claims) over
``mainContainer.resources``, as one container's ``resources``, and back.

Merged as the builders do: the service's amounts win over the main container's on the same key,
claims merge by name. Split back: ``cpu``/``memory`` to their fields, the GPU key (``gpuType``
from the hints, else ``nvidia.com/gpu``) to ``gpu``, other quantities to ``custom``, and the keys
the hints name (they came from ``mainContainer.resources``) back there.
"""

from __future__ import annotations

import re
from typing import Any, Final

from dynamo_operator.api.base import QUANTITY_PATTERN
from dynamo_operator.constants import GPU_RESOURCE_NAME
from dynamo_operator.conversion.wire import JsonDict, as_dict, as_list, copy_json

SIDES: Final = ("requests", "limits")
_QUANTITY = re.compile(QUANTITY_PATTERN)


def split_resources(resources: JsonDict, hints: JsonDict) -> tuple[JsonDict, JsonDict]:
    """(v1alpha1 ``resources``, ``mainContainer.resources``) of a container's resources."""
    own_keys = as_dict(hints.get("res")) or {}
    gpu_types = as_dict(hints.get("gpu")) or {}
    alpha: JsonDict = {}
    own: JsonDict = {}
    for key, value in resources.items():
        if key in SIDES and isinstance(value, dict):
            side, own_side = _split_side(value, own_keys.get(key), gpu_types.get(key))
            if side:
                alpha[key] = side
            if own_side:
                own[key] = own_side
        elif key == "claims" and isinstance(value, list):
            alpha[key] = copy_json(value)
        else:
            own[key] = copy_json(value)
    return alpha, own


def _split_side(amounts: JsonDict, own_keys: Any, gpu_type: Any) -> tuple[JsonDict, JsonDict]:
    own_set = set(own_keys) if isinstance(own_keys, list) else set()
    gpu_key = gpu_type if isinstance(gpu_type, str) and gpu_type else GPU_RESOURCE_NAME
    side: JsonDict = {}
    own: JsonDict = {}
    for key, value in amounts.items():
        if key in own_set or not _quantity_like(value):
            own[key] = copy_json(value)
        elif key in ("cpu", "memory") and key not in side:
            side[key] = value
        elif key == gpu_key and "gpu" not in side:
            side["gpu"] = value
            if isinstance(gpu_type, str) and gpu_type:
                side["gpuType"] = gpu_type
        else:
            side.setdefault("custom", {})[key] = value
    return side, own


def merged_resources(spec: JsonDict | None, own: JsonDict | None) -> JsonDict | None:
    merged: JsonDict = copy_json(own) if own is not None else {}
    for side in SIDES:
        amounts = _amounts(as_dict(spec.get(side)) if spec else None)
        if amounts:
            merged[side] = {**(as_dict(merged.get(side)) or {}), **amounts}
    claims = as_list(spec.get("claims")) if spec else None
    if claims:
        merged["claims"] = _merged_claims(as_list(merged.get("claims")) or [], claims)
    return merged or None


def _amounts(item: JsonDict | None) -> JsonDict:
    if item is None:
        return {}
    amounts: JsonDict = {}
    for key in ("cpu", "memory"):
        if item.get(key) is not None:
            amounts[key] = item[key]
    if item.get("gpu") is not None:
        amounts[_text(item.get("gpuType")) or GPU_RESOURCE_NAME] = item["gpu"]
    for key, value in (as_dict(item.get("custom")) or {}).items():
        amounts[key] = value
    return amounts


def _merged_claims(own: list[Any], claims: list[Any]) -> list[Any]:
    merged: list[Any] = copy_json(own)
    for claim in claims:
        name = claim.get("name") if isinstance(claim, dict) else None
        index = next(
            (i for i, c in enumerate(merged) if isinstance(c, dict) and c.get("name") == name),
            None,
        )
        if name is not None and index is not None:
            merged[index] = copy_json(claim)
        else:
            merged.append(copy_json(claim))
    return merged


def resource_hints(spec: JsonDict | None, own: JsonDict | None) -> JsonDict:
    own_keys: JsonDict = {}
    gpu_types: JsonDict = {}
    for side in SIDES:
        amounts = _amounts(as_dict(spec.get(side)) if spec else None)
        own_side = as_dict(own.get(side)) if own else None
        keys = sorted(k for k in own_side or {} if k not in amounts)
        if keys:
            own_keys[side] = keys
        item = as_dict(spec.get(side)) if spec else None
        if item and item.get("gpu") is not None and _text(item.get("gpuType")):
            gpu_types[side] = item["gpuType"]
    hints: JsonDict = {}
    if own_keys:
        hints["res"] = own_keys
    if gpu_types:
        hints["gpu"] = gpu_types
    return hints


def _quantity_like(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return isinstance(value, str) and _QUANTITY.match(value) is not None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
