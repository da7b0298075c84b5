"""DynamoComponentDeployment v1beta1: one component of a graph, the component fields inline."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from dynamo_operator.api.base import ApiModel, ObjectMeta
from dynamo_operator.api.conditions import Conditions
from dynamo_operator.api.constants import (
    BETA_API_VERSION,
    KIND_COMPONENT_DEPLOYMENT,
    BackendFramework,
)
from dynamo_operator.api.v1beta1.component import Component
from dynamo_operator.api.v1beta1.graph_deployment import ComponentReplicaStatus


class DynamoComponentDeploymentSpec(Component):
    """Desired state of a component deployment: the backend plus the component inline."""

    backend_framework: BackendFramework | None = None
    """Backend framework of the component (sglang, vllm or trtllm); immutable."""


class DynamoComponentDeploymentStatus(ApiModel):
    """Observed state of a component deployment."""

    observed_generation: Annotated[int, Field(ge=0)] | None = None
    """The metadata.generation this status describes."""
    conditions: Conditions | None = None
    """Latest observations of the component (Available, DynamoComponentReady, Valid)."""
    pod_selector: dict[str, str] | None = None
    """Labels selecting the component's pods."""
    component: ComponentReplicaStatus | None = None
    """Replica status of the workload backing the component."""


class DynamoComponentDeployment(ApiModel):
    """DynamoComponentDeployment deploys one component of a Dynamo graph."""

    model_config = ConfigDict(title=KIND_COMPONENT_DEPLOYMENT)

    api_version: str = BETA_API_VERSION
    """API version of this object."""
    kind: Literal["DynamoComponentDeployment"] = KIND_COMPONENT_DEPLOYMENT
    """Kind of this object."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""
    spec: DynamoComponentDeploymentSpec
    """Desired state of the component deployment."""
    status: DynamoComponentDeploymentStatus | None = None
    """Observed state of the component deployment."""
