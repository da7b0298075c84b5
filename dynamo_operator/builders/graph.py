"""A read-only view of a graph deployment in wire form (see ``component.py`` for why wire form)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dynamo_operator.api import KIND_GRAPH_DEPLOYMENT, DynamoGraphDeployment
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.builders.metadata import controller_reference
from dynamo_operator.naming import dynamo_namespace


@dataclass(frozen=True, slots=True)
class Graph:
    name: str
    namespace: str
    uid: str | None
    annotations: Mapping[str, str]
    spec: Mapping[str, Any]

    @classmethod
    def from_model(cls, dgd: DynamoGraphDeployment, default_namespace: str) -> Graph:
        """The view of a validated DGD; ``default_namespace`` places a DGD that names none."""
        wire = dgd.to_wire()
        metadata = wire.get("metadata") or {}
        return cls(
            name=str(metadata.get("name") or ""),
            namespace=str(metadata.get("namespace") or default_namespace),
            uid=metadata.get("uid") or None,
            annotations=metadata.get("annotations") or {},
            spec=wire.get("spec") or {},
        )

    @property
    def services(self) -> Mapping[str, Mapping[str, Any]]:
        return self.spec.get("services") or {}

    @property
    def dynamo_namespace(self) -> str:
        services = self.services
        declared = (services[key].get("dynamoNamespace") for key in sorted(services))
        return dynamo_namespace(self.namespace, self.name, declared)

    def owner_reference(self) -> JsonDict:
        return controller_reference(KIND_GRAPH_DEPLOYMENT, self.name, self.uid)
