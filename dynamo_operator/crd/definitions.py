"""CustomResourceDefinition manifests of the Dynamo kinds, generated from the API models.

``CUSTOM_RESOURCES`` are the kinds users write and the operator reconciles (and admits);
``SCALING_RESOURCES`` are written by the operator itself (one DynamoGraphDeploymentScalingAdapter
per component that asks for one) and scaled by autoscalers through their scale subresource;
``RUNTIME_RESOURCES`` are written by Dynamo's own processes (Kubernetes discovery): the CRD chart
installs them too, but the operator neither watches nor admits them.

A kind may be served at several versions, each with its own schema; one of them (v1alpha1, what
the operator reads and writes) is the storage version. The API server converts between them by
calling the conversion webhook at ``/convert``: ``CONVERTIBLE_RESOURCES`` lists the CRDs that carry
that stanza (``ConversionService.stanza``), whose service and CA the chart and the operator fill in.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from dynamo_operator.api import (
    GROUP,
    KIND_COMPONENT,
    KIND_COMPONENT_DEPLOYMENT,
    KIND_GRAPH_DEPLOYMENT,
    KIND_MODEL,
    KIND_WORKER_METADATA,
    VERSION,
    DynamoComponent,
    DynamoComponentDeployment,
    DynamoGraphDeployment,
    DynamoModel,
    DynamoWorkerMetadata,
    v1beta1,
)
from dynamo_operator.api.constants import BETA_VERSION, KIND_SCALING_ADAPTER
from dynamo_operator.api.scaling_adapter import DynamoGraphDeploymentScalingAdapter
from dynamo_operator.crd.conversion import DEFAULT_CONVERSION_SERVICE, ConversionService
from dynamo_operator.crd.resource import (
    CustomResource,
    CustomResourceVersion,
    PrinterColumn,
    ScaleSubresource,
)


def _condition_status(condition_type: str) -> str:
    return f'.status.conditions[?(@.type=="{condition_type}")].status'


_AGE = PrinterColumn("Age", ".metadata.creationTimestamp", "date")
_READY = PrinterColumn("Ready", _condition_status("Ready"), description="Ready condition")
_BACKEND = PrinterColumn("Backend", ".spec.backendFramework", description="Backend framework")
_REPLICAS = PrinterColumn("Replicas", ".spec.replicas", "integer", "Desired replicas")
_AVAILABLE = PrinterColumn("Available", _condition_status("Available"), description="Available")


def _stored(model: type[BaseModel], *columns: PrinterColumn) -> CustomResourceVersion:
    return CustomResourceVersion(VERSION, model, columns, storage=True)


CUSTOM_RESOURCES: tuple[CustomResource, ...] = (
    CustomResource(
        kind=KIND_GRAPH_DEPLOYMENT,
        plural="dynamographdeployments",
        short_name="dgd",
        versions=(
            _stored(
                DynamoGraphDeployment,
                PrinterColumn("State", ".status.state", description="Lifecycle state of the graph"),
                _READY,
                _BACKEND,
                _AGE,
            ),
            CustomResourceVersion(
                BETA_VERSION, v1beta1.DynamoGraphDeployment, (_READY, _BACKEND, _AGE)
            ),
        ),
    ),
    CustomResource(
        kind=KIND_COMPONENT_DEPLOYMENT,
        plural="dynamocomponentdeployments",
        short_name="dcd",
        versions=(
            _stored(
                DynamoComponentDeployment,
                PrinterColumn("ComponentType", ".spec.componentType", description="Component type"),
                _REPLICAS,
                _AVAILABLE,
                _AGE,
            ),
            CustomResourceVersion(
                BETA_VERSION,
                v1beta1.DynamoComponentDeployment,
                (
                    PrinterColumn("Type", ".spec.type", description="Component type"),
                    _REPLICAS,
                    _AVAILABLE,
                    _AGE,
                ),
            ),
        ),
    ),
    CustomResource(
        kind=KIND_MODEL,
        plural="dynamomodels",
        short_name="dm",
        versions=(
            _stored(
                DynamoModel,
                PrinterColumn("BaseModel", ".spec.baseModelName", description="Base model name"),
                PrinterColumn("Type", ".spec.modelType", description="Model type"),
                PrinterColumn("Ready", ".status.readyEndpoints", "integer", "Ready endpoints"),
                PrinterColumn("Total", ".status.totalEndpoints", "integer", "Total endpoints"),
                _AGE,
            ),
        ),
    ),
    CustomResource(
        kind=KIND_COMPONENT,
        plural="dynamocomponents",
        short_name="dc",
        versions=(
            _stored(
                DynamoComponent,
                PrinterColumn("Image", ".status.image", description="Image built for the artifact"),
                PrinterColumn(
                    "Available",
                    _condition_status("DynamoComponentAvailable"),
                    description="DynamoComponentAvailable condition",
                ),
                _AGE,
            ),
        ),
    ),
)

_ADAPTED_GRAPH = PrinterColumn("DGD", ".spec.dgdRef.name", description="Scaled graph")
_ADAPTER_REPLICAS = PrinterColumn("Replicas", ".spec.replicas", "integer", "Desired replicas")

SCALING_RESOURCES: tuple[CustomResource, ...] = (
    CustomResource(
        kind=KIND_SCALING_ADAPTER,
        plural="dynamographdeploymentscalingadapters",
        short_name="dgdsa",
        versions=(
            CustomResourceVersion(
                VERSION,
                DynamoGraphDeploymentScalingAdapter,
                (
                    _ADAPTED_GRAPH,
                    PrinterColumn("Service", ".spec.dgdRef.serviceName", description="Service"),
                    _ADAPTER_REPLICAS,
                    _AGE,
                ),
                storage=True,
                scale=ScaleSubresource(),
            ),
            CustomResourceVersion(
                BETA_VERSION,
                v1beta1.DynamoGraphDeploymentScalingAdapter,
                (
                    _ADAPTED_GRAPH,
                    PrinterColumn(
                        "Component", ".spec.dgdRef.componentName", description="Component"
                    ),
                    _ADAPTER_REPLICAS,
                    _AGE,
                ),
                scale=ScaleSubresource(),
            ),
        ),
    ),
)

RUNTIME_RESOURCES: tuple[CustomResource, ...] = (
    CustomResource(
        kind=KIND_WORKER_METADATA,
        plural="dynamoworkermetadatas",
        short_name="dwm",
        versions=(
            CustomResourceVersion(
                VERSION, DynamoWorkerMetadata, (_AGE,), storage=True, status_subresource=False
            ),
        ),
    ),
)

ALL_RESOURCES: tuple[CustomResource, ...] = (
    *CUSTOM_RESOURCES,
    *SCALING_RESOURCES,
    *RUNTIME_RESOURCES,
)
"""Every CRD the chart installs, in a stable order."""

CONVERTIBLE_RESOURCES: tuple[CustomResource, ...] = tuple(
    resource for resource in ALL_RESOURCES if resource.needs_conversion
)
"""The CRDs served at several versions: they name the conversion webhook, whose CA the operator
injects (``spec.conversion.webhook.clientConfig.caBundle``)."""


def build_crds(conversion: ConversionService = DEFAULT_CONVERSION_SERVICE) -> list[dict[str, Any]]:
    """Every Dynamo CRD manifest, in a stable order; the multi-version ones call ``conversion``."""
    return [build_crd(resource, conversion) for resource in ALL_RESOURCES]


def build_crd(
    resource: CustomResource, conversion: ConversionService = DEFAULT_CONVERSION_SERVICE
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "group": GROUP,
        "names": {
            "kind": resource.kind,
            "listKind": f"{resource.kind}List",
            "plural": resource.plural,
            "singular": resource.kind.lower(),
            "shortNames": [resource.short_name],
        },
        "scope": "Namespaced",
        "versions": [version.to_wire() for version in resource.versions],
    }
    if resource.needs_conversion:
        spec["conversion"] = conversion.stanza()
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": resource.crd_name},
        "spec": spec,
    }
