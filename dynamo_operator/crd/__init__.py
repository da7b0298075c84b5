"""CRD manifests generated from the pydantic API models (never hand-written)."""

from dynamo_operator.crd.definitions import (
    CUSTOM_RESOURCES,
    RUNTIME_RESOURCES,
    CustomResource,
    build_crd,
    build_crds,
)
from dynamo_operator.crd.schema import build_structural_schema, find_structural_violations

__all__ = [
    "CUSTOM_RESOURCES",
    "RUNTIME_RESOURCES",
    "CustomResource",
    "build_crd",
    "build_crds",
    "build_structural_schema",
    "find_structural_violations",
]
