"""DynamoComponentDeployment: one service of a graph, usually generated from a graph deployment."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from dynamo_operator.api.base import ApiModel, ObjectMeta
from dynamo_operator.api.conditions import Conditions
from dynamo_operator.api.constants import API_VERSION, KIND_COMPONENT_DEPLOYMENT, BackendFramework
from dynamo_operator.api.graph_deployment import ServiceReplicaStatus
from dynamo_operator.api.shared_spec import DynamoComponentDeploymentSharedSpec


class DynamoComponentDeploymentSpec(DynamoComponentDeploymentSharedSpec):
    """Desired state of a component deployment: the backend plus the service entry inline."""

    backend_framework: BackendFramework | None = None
    """Backend framework of the component (sglang, vllm or trtllm); immutable."""
    dynamo_component: str | None = None
    """The artifact (``name:version``) this component comes from, when its graph names one."""
    dynamo_tag: str | None = None
    """The artifact's graph entry point (e.g. ``graphs.agg:Frontend``), for information."""


class DynamoComponentDeploymentStatus(ApiModel):
    """Observed state of a component deployment."""

    observed_generation: Annotated[int, Field(ge=0)] | None = None
    """The metadata.generation this status describes."""
    conditions: Conditions | None = None
    """Latest observations of the component (Available, DynamoComponentReady, Valid)."""
    pod_selector: dict[str, str] | None = None
    """Labels selecting the component's pods."""
    service: ServiceReplicaStatus | None = None
    """Replica status of the workload backing the component."""


class DynamoComponentDeployment(ApiModel):
    """DynamoComponentDeployment deploys one component (service) of a Dynamo graph."""

    model_config = ConfigDict(title=KIND_COMPONENT_DEPLOYMENT)

    api_version: str = API_VERSION
    """API version of this object."""
    kind: Literal["DynamoComponentDeployment"] = KIND_COMPONENT_DEPLOYMENT
    """Kind of this object."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""
    spec: DynamoComponentDeploymentSpec
    """Desired state of the component deployment."""
    status: DynamoComponentDeploymentStatus | None = None
    """Observed state of the component deployment."""
