"""The shape of a CRD: a kind, its served versions (each a model, printer columns and
subresources), and how one version becomes the ``spec.versions`` entry the API server reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from dynamo_operator.api import GROUP
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
class ScaleSubresource:
    """Where the scale subresource (``kubectl scale``, HPA) reads and writes the replicas."""

    spec_replicas_path: str = ".spec.replicas"
    status_replicas_path: str = ".status.replicas"
    label_selector_path: str = ".status.selector"

    def to_wire(self) -> dict[str, str]:
        return {
            "specReplicasPath": self.spec_replicas_path,
            "statusReplicasPath": self.status_replicas_path,
            "labelSelectorPath": self.label_selector_path,
        }


@dataclass(frozen=True, slots=True)
class CustomResourceVersion:
    """One served version of a kind: its model (the schema), columns and subresources."""

    name: str
    model: type[BaseModel]
    columns: tuple[PrinterColumn, ...]
    storage: bool = False
    status_subresource: bool = True
    scale: ScaleSubresource | None = None

    def to_wire(self) -> dict[str, Any]:
        subresources: dict[str, Any] = {"status": {}} if self.status_subresource else {}
        if self.scale is not None:
            subresources["scale"] = self.scale.to_wire()
        return {
            "name": self.name,
            "served": True,
            "storage": self.storage,
            **({"subresources": subresources} if subresources else {}),
            "additionalPrinterColumns": [column.to_wire() for column in self.columns],
            "schema": {"openAPIV3Schema": _root_schema(self.model)},
        }


@dataclass(frozen=True, slots=True)
class CustomResource:
    kind: str
    plural: str
    short_name: str
    versions: tuple[CustomResourceVersion, ...]
    """The served versions, oldest first; exactly one is the storage version."""

    @property
    def crd_name(self) -> str:
        return f"{self.plural}.{GROUP}"

    @property
    def storage_version(self) -> CustomResourceVersion:
        (stored,) = (version for version in self.versions if version.storage)
        return stored

    @property
    def model(self) -> type[BaseModel]:
        """The model of the storage version: what the operator reads and writes."""
        return self.storage_version.model

    @property
    def needs_conversion(self) -> bool:
        """Served at several versions, so the API server calls the conversion webhook."""
        return len(self.versions) > 1

    def version(self, name: str) -> CustomResourceVersion:
        for version in self.versions:
            if version.name == name:
                return version
        raise KeyError(f"{self.kind} has no version {name!r}")


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
