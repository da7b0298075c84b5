"""CustomResourceDefinition manifests of the Dynamo kinds, generated from the API models.

``CUSTOM_RESOURCES`` are the kinds users write and the operator reconciles (and admits);
``RUNTIME_RESOURCES`` are written by Dynamo's own processes (Kubernetes discovery): the CRD chart
installs them too, but the operator neither watches nor admits them.
"""

from __future__ import annotations

from dataclasses import dataclass
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
)
from dynamo_operator.crd.schema import JsonSchema, build_structural_schema


@dataclass(frozen=True, slots=True)
class PrinterColumn:
    name: str
    json_path: str
    type: str = "string"
    description: str = ""

    def to_wire(self) -> dict[str, str]:
        column = {"name": self.name, "type": self.type, "jsonPath": self.json_path}
        if self.description:
            column["description"] = self.description
        return column


@dataclass(frozen=True, slots=True)
class CustomResource:
    model: type[BaseModel]
    kind: str
    plural: str
    short_name: str
    columns: tuple[PrinterColumn, ...]
    status_subresource: bool = True

    @property
    def crd_name(self) -> str:
        return f"{self.plural}.{GROUP}"


def _condition_status(condition_type: str) -> str:
    return f'.status.conditions[?(@.type=="{condition_type}")].status'


_AGE = PrinterColumn("Age", ".metadata.creationTimestamp", "date")

CUSTOM_RESOURCES: tuple[CustomResource, ...] = (
    CustomResource(
        model=DynamoGraphDeployment,
        kind=KIND_GRAPH_DEPLOYMENT,
        plural="dynamographdeployments",
        short_name="dgd",
        columns=(
            PrinterColumn("State", ".status.state", description="Lifecycle state of the graph"),
            PrinterColumn("Ready", _condition_status("Ready"), description="Ready condition"),
            PrinterColumn("Backend", ".spec.backendFramework", description="Backend framework"),
            _AGE,
        ),
    ),
    CustomResource(
        model=DynamoComponentDeployment,
        kind=KIND_COMPONENT_DEPLOYMENT,
        plural="dynamocomponentdeployments",
        short_name="dcd",
        columns=(
            PrinterColumn("ComponentType", ".spec.componentType", description="Component type"),
            PrinterColumn("Replicas", ".spec.replicas", "integer", "Desired replicas"),
            PrinterColumn("Available", _condition_status("Available"), description="Available"),
            _AGE,
        ),
    ),
    CustomResource(
        model=DynamoModel,
        kind=KIND_MODEL,
        plural="dynamomodels",
        short_name="dm",
        columns=(
            PrinterColumn("BaseModel", ".spec.baseModelName", description="Base model name"),
            PrinterColumn("Type", ".spec.modelType", description="Model type"),
            PrinterColumn("Ready", ".status.readyEndpoints", "integer", "Ready endpoints"),
            PrinterColumn("Total", ".status.totalEndpoints", "integer", "Total endpoints"),
            _AGE,
        ),
    ),
    CustomResource(
        model=DynamoComponent,
        kind=KIND_COMPONENT,
        plural="dynamocomponents",
        short_name="dc",
        columns=(
            PrinterColumn("Image", ".status.image", description="Image built for the artifact"),
            PrinterColumn(
                "Available",
                _condition_status("DynamoComponentAvailable"),
                description="DynamoComponentAvailable condition",
            ),
            _AGE,
        ),
    ),
)


RUNTIME_RESOURCES: tuple[CustomResource, ...] = (
    CustomResource(
        model=DynamoWorkerMetadata,
        kind=KIND_WORKER_METADATA,
        plural="dynamoworkermetadatas",
        short_name="dwm",
        columns=(_AGE,),
        status_subresource=False,
    ),
)


def build_crds() -> list[dict[str, Any]]:
    """Every Dynamo CRD manifest, in a stable order."""
    return [build_crd(resource) for resource in (*CUSTOM_RESOURCES, *RUNTIME_RESOURCES)]


def build_crd(resource: CustomResource) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": resource.crd_name},
        "spec": {
            "group": GROUP,
            "names": {
                "kind": resource.kind,
                "listKind": f"{resource.kind}List",
                "plural": resource.plural,
                "singular": resource.kind.lower(),
                "shortNames": [resource.short_name],
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    **({"subresources": {"status": {}}} if resource.status_subresource else {}),
                    "additionalPrinterColumns": [column.to_wire() for column in resource.columns],
                    "schema": {"openAPIV3Schema": _root_schema(resource.model)},
                }
            ],
        },
    }


def _root_schema(model: type[BaseModel]) -> JsonSchema:
    schema = build_structural_schema(model)
    properties = schema["properties"]
    # The API server owns apiVersion, kind and metadata; a CRD may only describe them loosely, and
    # metadata not at all beyond its type (the server rejects even a description there).
    properties["apiVersion"] = _plain_string(properties["apiVersion"]["description"])
    properties["kind"] = _plain_string(properties["kind"]["description"])
    properties["metadata"] = {"type": "object"}
    schema.pop("required", None)
    schema["required"] = ["spec"]
    return schema


def _plain_string(description: str) -> JsonSchema:
    return {"type": "string", "description": description}
