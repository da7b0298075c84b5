"""DynamoGraphDeployment v1beta1: a whole inference graph as a list of components."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, JsonValue

from dynamo_operator.api.base import ApiModel, EnvVar, ObjectMeta
from dynamo_operator.api.conditions import Conditions
from dynamo_operator.api.constants import (
    BETA_API_VERSION,
    KIND_GRAPH_DEPLOYMENT,
    MAX_COMPONENTS,
    BackendFramework,
    GraphDeploymentState,
    ServiceComponentKind,
)
from dynamo_operator.api.graph_deployment import RFC3339_TIME, RollingUpdatePhase
from dynamo_operator.api.shared_spec import LIST_MAP_BY_NAME
from dynamo_operator.api.v1beta1.component import Component

#: Rules the API server checks on the whole list (the list map already refuses an exact
#: duplicate name). Children are named after the lowercased component name, so names that differ
#: only by case would collide; and a graph has one endpoint picker at most.
COMPONENTS_RULES: list[dict[str, JsonValue]] = [
    {
        "rule": "self.all(c, self.filter(o, o.name.lowerAscii() == c.name.lowerAscii())"
        ".size() == 1)",
        "message": "component names must be unique ignoring case",
    },
    {
        "rule": "self.filter(c, has(c.type) && c.type == 'epp').size() <= 1",
        "message": "at most one component may have type epp",
    },
]

_COMPONENTS_SCHEMA: dict[str, Any] = {
    **LIST_MAP_BY_NAME,
    "x-kubernetes-validations": COMPONENTS_RULES,
}


class DynamoGraphDeploymentSpec(ApiModel):
    """Desired state of a graph deployment."""

    components: Annotated[
        list[Component], Field(max_length=MAX_COMPONENTS, json_schema_extra=_COMPONENTS_SCHEMA)
    ] = Field(default_factory=list)
    """Components of the graph; each becomes a DynamoComponentDeployment."""
    env: Annotated[list[EnvVar], Field(json_schema_extra=LIST_MAP_BY_NAME)] | None = None
    """Environment variables of every component's main container; a component's own win."""
    backend_framework: BackendFramework | None = None
    """Backend framework of the workers (sglang, vllm or trtllm); immutable."""


class ComponentReplicaStatus(ApiModel):
    """Replica counts of the workload that backs one component."""

    component_kind: ServiceComponentKind | None = None
    """Kind of workload backing the component."""
    component_name: str | None = None
    """Name of the workload backing the component."""
    replicas: Annotated[int, Field(ge=0)] | None = None
    """Desired replicas of the workload."""
    updated_replicas: Annotated[int, Field(ge=0)] | None = None
    """Replicas running the current template."""
    ready_replicas: Annotated[int, Field(ge=0)] | None = None
    """Replicas that are ready."""
    available_replicas: Annotated[int, Field(ge=0)] | None = None
    """Replicas that have been ready long enough to be available."""


class RollingUpdateStatus(ApiModel):
    """The latest rolling update of the graph's worker components (worker, prefill, decode)."""

    phase: RollingUpdatePhase | None = None
    """Pending, InProgress, Completed or Failed."""
    start_time: Annotated[str, Field(json_schema_extra=RFC3339_TIME)] | None = None
    """When the rolling update began (RFC 3339)."""
    end_time: Annotated[str, Field(json_schema_extra=RFC3339_TIME)] | None = None
    """When the rolling update completed or failed (RFC 3339)."""
    updated_components: list[str] | None = None
    """Worker components already running their new spec on every replica, sorted."""


class DynamoGraphDeploymentStatus(ApiModel):
    """Observed state of a graph deployment."""

    state: GraphDeploymentState | None = None
    """High-level lifecycle state: initializing, pending, successful or failed."""
    observed_generation: Annotated[int, Field(ge=0)] | None = None
    """The metadata.generation this status describes."""
    conditions: Conditions | None = None
    """Latest observations of the graph deployment (Ready)."""
    components: dict[str, ComponentReplicaStatus] | None = None
    """Replica status of each component, by component name."""
    rolling_update: RollingUpdateStatus | None = None
    """Progress of the current or last rolling update."""


class DynamoGraphDeployment(ApiModel):
    """DynamoGraphDeployment deploys a complete Dynamo inference graph."""

    model_config = ConfigDict(title=KIND_GRAPH_DEPLOYMENT)

    api_version: str = BETA_API_VERSION
    """API version of this object."""
    kind: Literal["DynamoGraphDeployment"] = KIND_GRAPH_DEPLOYMENT
    """Kind of this object."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""
    spec: DynamoGraphDeploymentSpec
    """Desired state of the graph deployment."""
    status: DynamoGraphDeploymentStatus | None = None
    """Observed state of the graph deployment."""
