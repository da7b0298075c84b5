"""``convert``: any supported object to the requested version, dispatching on its kind.

What the API server's ConversionReview needs: a new object (the input is never modified), the
same metadata except the residue annotation, and either a converted object or a
``ConversionError`` naming the field. Nothing else may escape, whatever the stored object holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from dynamo_operator.api.constants import (
    API_VERSION,
    GROUP,
    KIND_COMPONENT_DEPLOYMENT,
    KIND_GRAPH_DEPLOYMENT,
)
from dynamo_operator.conversion import component_deployment as dcd
from dynamo_operator.conversion import graph_deployment as dgd
from dynamo_operator.conversion import scaling_adapter as dgdsa
from dynamo_operator.conversion.errors import ConversionError
from dynamo_operator.conversion.patch import Step
from dynamo_operator.conversion.preserved import (
    COMPONENT_ANNOTATION,
    GRAPH_ANNOTATION,
    Residue,
    decode_residue,
    encode_residue,
)
from dynamo_operator.conversion.roundtrip import KindCodec, alpha_to_beta, beta_to_alpha
from dynamo_operator.conversion.wire import JsonDict, check_json, copy_json
from dynamo_operator.field_paths import describe, join_path

ALPHA_API_VERSION: Final = API_VERSION
BETA_API_VERSION: Final = f"{GROUP}/v1beta1"
KIND_SCALING_ADAPTER: Final = "DynamoGraphDeploymentScalingAdapter"
_VERSIONS: Final = (ALPHA_API_VERSION, BETA_API_VERSION)
_ENVELOPE: Final = frozenset({"apiVersion", "kind", "metadata"})

CODECS: Final[dict[str, KindCodec]] = {
    KIND_GRAPH_DEPLOYMENT: KindCodec(
        dgd.graph_to_beta,
        dgd.graph_to_alpha,
        dgd.graph_alpha_hints,
        dgd.graph_beta_sources,
        dgd.graph_alpha_sources,
        GRAPH_ANNOTATION,
    ),
    KIND_COMPONENT_DEPLOYMENT: KindCodec(
        dcd.component_deployment_to_beta,
        dcd.component_deployment_to_alpha,
        dcd.component_deployment_alpha_hints,
        dcd.component_deployment_beta_sources,
        dcd.component_deployment_alpha_sources,
        COMPONENT_ANNOTATION,
    ),
    KIND_SCALING_ADAPTER: KindCodec(
        dgdsa.adapter_to_beta,
        dgdsa.adapter_to_alpha,
        dgdsa.adapter_hints,
        dgdsa.no_sources,
        dgdsa.no_sources,
        None,
    ),
}


def convert(obj: Mapping[str, Any], api_version: str) -> dict[str, Any]:
    """``obj`` at ``api_version``, as a new dict; ConversionError for anything unconvertible."""
    if not isinstance(obj, Mapping):
        raise ConversionError("", f"must be an object (got {describe(obj)})")
    source = dict(obj)
    check_json(source)
    codec = _codec(source, api_version)
    if source["apiVersion"] == api_version:
        return copy_json(source)  # type: ignore[no-any-return]
    metadata = source.get("metadata", {})
    if not isinstance(metadata, dict):
        raise ConversionError("metadata", f"must be an object (got {describe(metadata)})")
    annotations = metadata.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        raise ConversionError(
            "metadata.annotations", f"must be an object (got {describe(annotations)})"
        )
    carried = Residue()
    if codec.annotation is not None and annotations:
        carried = decode_residue(annotations.get(codec.annotation))
    body = {key: value for key, value in source.items() if key not in _ENVELOPE}
    translate = alpha_to_beta if api_version == BETA_API_VERSION else beta_to_alpha
    try:
        converted, residue = translate(codec, body, metadata, carried)
    except RecursionError as error:  # bounded by check_json; kept as a last line of defence
        raise ConversionError("", "object too deeply nested to convert") from error
    result: JsonDict = {"apiVersion": api_version, "kind": source["kind"]}
    if "metadata" in source:
        restored = _metadata(metadata, codec.annotation, carried, residue)
        if restored or not carried.no_metadata:
            result["metadata"] = restored
    elif codec.annotation is not None and not residue.is_empty():
        residue = Residue(residue.hints, residue.ops, no_metadata=True)
        result["metadata"] = {"annotations": {codec.annotation: encode_residue(residue)}}
    result.update(converted)
    return result


def _codec(obj: JsonDict, api_version: str) -> KindCodec:
    source_version = obj.get("apiVersion")
    if source_version not in _VERSIONS:
        raise ConversionError(
            "apiVersion",
            f"cannot convert from {describe(source_version)}: not a version of "
            f"these kinds ({', '.join(_VERSIONS)})",
        )
    if api_version not in _VERSIONS:
        raise ConversionError(
            "apiVersion",
            f"cannot convert to {describe(api_version)}: not one of {', '.join(_VERSIONS)}",
        )
    kind = obj.get("kind")
    codec = CODECS.get(kind) if isinstance(kind, str) else None
    if codec is None:
        raise ConversionError(
            "kind", f"{describe(kind)} has no conversion (only {', '.join(CODECS)})"
        )
    return codec


def _metadata(metadata: JsonDict, key: str | None, carried: Residue, residue: Residue) -> JsonDict:
    """The source metadata with the residue annotation consumed and the new one written."""
    result: JsonDict = copy_json(metadata)
    if key is None:
        if not residue.is_empty():
            raise ConversionError(_op_path(residue.ops), "has no equivalent at the other version")
        return result
    annotations = metadata.get("annotations")
    kept = {k: v for k, v in (annotations or {}).items() if k != key}
    had_key = isinstance(annotations, dict) and key in annotations
    if not residue.is_empty():
        if annotations == {}:
            residue = Residue(residue.hints, residue.ops, empty_annotations=True)
        elif annotations is None and "annotations" in metadata:
            residue = Residue(residue.hints, residue.ops, null_annotations=True)
        kept[key] = encode_residue(residue)
    if kept or (annotations is not None and not had_key) or (had_key and carried.empty_annotations):
        result["annotations"] = kept
    elif had_key and carried.null_annotations:
        result["annotations"] = None
    elif annotations is not None:  # only ours, consumed; an explicit null stays as it came
        result.pop("annotations", None)
    return result


def _op_path(ops: list[Any]) -> str:
    path = ops[0][1] if ops and isinstance(ops[0], list) and len(ops[0]) > 1 else []
    return join_path("", *(_step(step) for step in path))


def _step(step: Step) -> str | int:
    return f"[name={step[0]}]" if isinstance(step, list) else step
