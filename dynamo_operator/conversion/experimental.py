"""Upstream's experimental fields: v1alpha1 service fields <-> v1beta1 ``experimental.<name>``.

Upstream's own mapping (``shared_spec_conversion.go``), on wire dicts:

- ``gpuMemoryService`` and ``failover``: at v1beta1 a block is on by being there, at v1alpha1 by
  ``enabled: true``. An enabled v1alpha1 block becomes the v1beta1 block without ``enabled``; a
  disabled one has no v1beta1 form (the residue keeps it). A v1beta1 block becomes
  ``enabled: true`` plus its fields, so an explicit ``enabled: false`` (an older upstream v1beta1
  form) still says off. The modes are spelled ``intraPod``/``interPod`` at v1alpha1 and
  ``IntraPod``/``InterPod`` at v1beta1; other values pass as written.
- ``checkpoint`` says ``enabled`` at both versions: it is copied as is.

Every other field of a block (upstream adds some in each release) is copied as is, so the whole
block reaches validation, which refuses any of them that is on. Anything the maps do not rebuild
exactly (a disabled block, a mode written in the other version's spelling) travels in the residue.
"""

from __future__ import annotations

from typing import Final

from dynamo_operator.conversion.wire import JsonDict, as_dict, copy_json

EXPERIMENTAL: Final = "experimental"
GPU_MEMORY_SERVICE: Final = "gpuMemoryService"
FAILOVER: Final = "failover"
CHECKPOINT: Final = "checkpoint"
EXPERIMENTAL_FIELDS: Final = (GPU_MEMORY_SERVICE, FAILOVER, CHECKPOINT)
"""The v1alpha1 service fields that live under a v1beta1 component's ``experimental``."""
_ON_BY_PRESENCE: Final = frozenset({GPU_MEMORY_SERVICE, FAILOVER})
_MODES_TO_BETA: Final = {"intraPod": "IntraPod", "interPod": "InterPod"}
_MODES_TO_ALPHA: Final = {beta: alpha for alpha, beta in _MODES_TO_BETA.items()}


def experimental_to_beta(service: JsonDict) -> JsonDict:
    """The v1beta1 component fields (``experimental``, or none) of a v1alpha1 service's blocks."""
    block: JsonDict = {}
    for name in EXPERIMENTAL_FIELDS:
        value = as_dict(service.get(name))
        if value is None:
            continue
        if name not in _ON_BY_PRESENCE:
            block[name] = copy_json(value)
        elif value.get("enabled") is True:
            fields = {key: copy_json(item) for key, item in value.items() if key != "enabled"}
            block[name] = _with_mode(fields, _MODES_TO_BETA)
    return {EXPERIMENTAL: block} if block else {}


def experimental_to_alpha(component: JsonDict) -> JsonDict:
    """The v1alpha1 service fields of a v1beta1 component's ``experimental`` block."""
    block = as_dict(component.get(EXPERIMENTAL)) or {}
    fields: JsonDict = {}
    for name in EXPERIMENTAL_FIELDS:
        value = as_dict(block.get(name))
        if value is None:
            continue
        if name not in _ON_BY_PRESENCE:
            fields[name] = copy_json(value)
        else:
            fields[name] = {"enabled": True, **_with_mode(copy_json(value), _MODES_TO_ALPHA)}
    return fields


def _with_mode(fields: JsonDict, spelling: dict[str, str]) -> JsonDict:
    mode = fields.get("mode")
    if isinstance(mode, str) and mode in spelling:
        fields["mode"] = spelling[mode]
    return fields
