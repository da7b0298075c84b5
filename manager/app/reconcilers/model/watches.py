"""What brings a DynamoModel back to its reconciler: its own changes and its workers' slices.

The models are indexed by namespace and base-model hash (``BASE_MODEL_INDEX``), the value the
EndpointSlices of a base model's Service carry in their ``nvidia.com/dynamo-base-model-hash``
label, so ``endpoint_slice_requests`` maps a slice change to exactly the models of that base
model in that namespace with one index lookup. A model's own events matter when its spec changes
and when its deletion starts (``model_changed``); status and finalizer writes do not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from dynamo_operator.constants import Labels
from dynamo_operator.naming import base_model_hash
from manager.runtime.cache import CacheReader
from manager.runtime.controller import Request
from manager.runtime.kinds import ResourceKind
from manager.runtime.predicate import Funcs, GenerationChanged, Predicate, or_

__all__ = [
    "BASE_MODEL_INDEX",
    "base_model_index",
    "endpoint_slice_requests",
    "model_changed",
]

BASE_MODEL_INDEX = "baseModelHash"
"""Index of the DynamoModel cache: ``<namespace>/<base-model hash>``."""


def base_model_index(model: Mapping[str, Any]) -> Iterable[str]:
    metadata = model.get("metadata") or {}
    base_model = (model.get("spec") or {}).get("baseModelName")
    if not base_model:
        return ()
    return (f"{metadata.get('namespace') or ''}/{base_model_hash(str(base_model))}",)


def endpoint_slice_requests(
    model_kind: ResourceKind,
) -> Callable[[Mapping[str, Any], CacheReader], Iterable[Request]]:
    """An EndpointSlice's base model's DynamoModels, in the slice's namespace."""

    def requests(endpoint_slice: Mapping[str, Any], reader: CacheReader) -> Iterable[Request]:
        metadata = endpoint_slice.get("metadata") or {}
        model_hash = (metadata.get("labels") or {}).get(Labels.BASE_MODEL_HASH)
        if not model_hash:
            return ()
        namespace = metadata.get("namespace") or ""
        return [
            Request(namespace, model["metadata"]["name"])
            for model in reader.by_index(model_kind, BASE_MODEL_INDEX, f"{namespace}/{model_hash}")
        ]

    return requests


def _deleting(obj: Mapping[str, Any]) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


DeletionStarted = Funcs(on_update=lambda old, new: _deleting(new) and not _deleting(old))


def model_changed() -> Predicate:
    """Spec changes (generation) and the start of a deletion."""
    return or_(GenerationChanged, DeletionStarted)
