"""A read-only view of one component deployment, in wire form, for the builders.

The builders read the DCD spec as the camelCase dict the API server stores: pod-spec fragments,
probes and ``mainContainer`` are free-form Kubernetes JSON anyway, and working on one dict avoids
re-validating pydantic models inside the hot loops. The view answers the questions every builder
asks (type, backend, node count, parent graph, Dynamo namespace) in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dynamo_operator.api import (
    KIND_COMPONENT_DEPLOYMENT,
    KIND_GRAPH_DEPLOYMENT,
    DynamoComponentDeployment,
    nodes_per_replica,
)
from dynamo_operator.backend_inference import effective_backend
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.builders.metadata import controller_reference
from dynamo_operator.constants import Labels
from dynamo_operator.naming import default_dynamo_namespace


@dataclass(frozen=True, slots=True)
class Component:
    name: str
    namespace: str
    uid: str | None
    metadata_labels: Mapping[str, str]
    metadata_annotations: Mapping[str, str]
    owner_references: tuple[Mapping[str, Any], ...]
    spec: Mapping[str, Any]

    @classmethod
    def from_model(cls, dcd: DynamoComponentDeployment, default_namespace: str) -> Component:
        """The view of a validated DCD; ``default_namespace`` places a DCD that names none."""
        return cls.from_wire(dcd.to_wire(), default_namespace)

    @classmethod
    def from_wire(cls, wire: Mapping[str, Any], default_namespace: str) -> Component:
        """The view of a DCD already in the builders' wire form (one `build_component_deployments`
        made from a validated graph), without parsing it again."""
        metadata = wire.get("metadata") or {}
        return cls(
            name=str(metadata.get("name") or ""),
            namespace=str(metadata.get("namespace") or default_namespace),
            uid=metadata.get("uid") or None,
            metadata_labels=metadata.get("labels") or {},
            metadata_annotations=metadata.get("annotations") or {},
            owner_references=tuple(metadata.get("ownerReferences") or ()),
            spec=wire.get("spec") or {},
        )

    def _section(self, key: str) -> Mapping[str, Any]:
        value = self.spec.get(key)
        return value if isinstance(value, Mapping) else {}

    @property
    def component_type(self) -> str:
        return str(self.spec.get("componentType") or "")

    @property
    def sub_component_type(self) -> str:
        return str(self.spec.get("subComponentType") or "")

    @property
    def service_name(self) -> str:
        return str(self.spec.get("serviceName") or self.name)

    @property
    def backend(self) -> str:
        """Declared, else inferred from the main container's launch command ("" if neither)."""
        declared = self.spec.get("backendFramework")
        return str(
            effective_backend(str(declared) if declared else None, self.main_container) or ""
        )

    @property
    def node_count(self) -> int:
        return nodes_per_replica(self.spec.get("multinode"))

    @property
    def is_multinode(self) -> bool:
        return self.node_count > 1

    @property
    def replicas(self) -> int:
        replicas = self.spec.get("replicas")
        return 1 if replicas is None else int(replicas)

    @property
    def annotations(self) -> Mapping[str, str]:
        return self._section("annotations")

    @property
    def labels(self) -> Mapping[str, str]:
        return self._section("labels")

    @property
    def extra_pod_spec(self) -> Mapping[str, Any]:
        return self._section("extraPodSpec")

    @property
    def main_container(self) -> Mapping[str, Any]:
        value = self.extra_pod_spec.get("mainContainer")
        return value if isinstance(value, Mapping) else {}

    @property
    def pod_spec_overrides(self) -> JsonDict:
        return {key: value for key, value in self.extra_pod_spec.items() if key != "mainContainer"}

    @property
    def image(self) -> str | None:
        image = self.main_container.get("image")
        return str(image) if image else None

    @property
    def base_model_name(self) -> str | None:
        """The base model the component serves (``modelRef.name``), if it declares one."""
        name = self._section("modelRef").get("name")
        return str(name) if name else None

    @property
    def autoscaling_enabled(self) -> bool:
        return bool(self._section("autoscaling").get("enabled"))

    @property
    def graph_name(self) -> str | None:
        """The parent graph: the controller owner of kind DGD, else the graph label if any."""
        for reference in self.owner_references:
            if reference.get("kind") == KIND_GRAPH_DEPLOYMENT and reference.get("name"):
                return str(reference["name"])
        label = self.metadata_labels.get(Labels.GRAPH_DEPLOYMENT_NAME)
        return label or None

    @property
    def dynamo_namespace(self) -> str:
        declared = self.spec.get("dynamoNamespace")
        if declared:
            return str(declared)
        return default_dynamo_namespace(self.namespace, self.graph_name or self.name)

    def owner_reference(self) -> JsonDict:
        return controller_reference(KIND_COMPONENT_DEPLOYMENT, self.name, self.uid)
