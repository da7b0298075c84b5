"""CRD manifests generated from the pydantic API models (never hand-written)."""

from dynamo_operator.crd.conversion import (
    CONVERSION_PATH,
    DEFAULT_CONVERSION_SERVICE,
    ConversionService,
    conversion_client_config,
)
from dynamo_operator.crd.definitions import (
    ALL_RESOURCES,
    CONVERTIBLE_RESOURCES,
    CUSTOM_RESOURCES,
    RUNTIME_RESOURCES,
    SCALING_RESOURCES,
    build_crd,
    build_crds,
)
from dynamo_operator.crd.resource import (
    CustomResource,
    CustomResourceVersion,
    PrinterColumn,
    ScaleSubresource,
)
from dynamo_operator.crd.schema import build_structural_schema, find_structural_violations

__all__ = [
    "ALL_RESOURCES",
    "CONVERSION_PATH",
    "CONVERTIBLE_RESOURCES",
    "CUSTOM_RESOURCES",
    "DEFAULT_CONVERSION_SERVICE",
    "RUNTIME_RESOURCES",
    "SCALING_RESOURCES",
    "ConversionService",
    "CustomResource",
    "CustomResourceVersion",
    "PrinterColumn",
    "ScaleSubresource",
    "build_crd",
    "build_crds",
    "build_structural_schema",
    "conversion_client_config",
    "find_structural_violations",
]
