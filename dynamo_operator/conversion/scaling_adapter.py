"""DynamoGraphDeploymentScalingAdapter: one rename, ``spec.dgdRef.serviceName`` (v1alpha1) <->
``spec.dgdRef.componentName`` (v1beta1); everything else, status included, is the same at both
versions. The adapter has no residue annotation: an object holding both names cannot be converted
without loss, and the conversion says so (``ConversionError``) rather than drop one.
"""

from __future__ import annotations

from typing import Final

from dynamo_operator.conversion.patch import Path
from dynamo_operator.conversion.wire import JsonDict, copy_json

ALPHA_REFERENCE: Final = "serviceName"
BETA_REFERENCE: Final = "componentName"


def adapter_to_beta(body: JsonDict, metadata: JsonDict) -> JsonDict:
    return _renamed(body, ALPHA_REFERENCE, BETA_REFERENCE)


def adapter_to_alpha(body: JsonDict, hints: JsonDict, metadata: JsonDict) -> JsonDict:
    return _renamed(body, BETA_REFERENCE, ALPHA_REFERENCE)


def adapter_hints(alpha: JsonDict, beta: JsonDict, metadata: JsonDict) -> JsonDict:
    return {}


def no_sources(path: Path) -> list[Path]:
    return []


def _renamed(body: JsonDict, old: str, new: str) -> JsonDict:
    converted: JsonDict = copy_json(body)
    spec = converted.get("spec")
    reference = spec.get("dgdRef") if isinstance(spec, dict) else None
    if isinstance(reference, dict):
        renamed: JsonDict = {}
        for key, value in reference.items():
            if key == old:
                renamed[new] = value
            elif key != new:
                renamed[key] = value
        spec["dgdRef"] = renamed  # type: ignore[index]
    return converted
