"""DynamoGraphDeployment: a whole inference graph, one entry per service."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from dynamo_operator.api.base import ApiModel, EnvVar, ObjectMeta
from dynamo_operator.api.conditions import Conditions
from dynamo_operator.api.constants import (
    API_VERSION,
    KIND_GRAPH_DEPLOYMENT,
    MAX_PVCS,
    MAX_SERVICES,
    BackendFramework,
    GraphDeploymentState,
    ServiceComponentKind,
)
from dynamo_operator.api.shared_spec import (
    LIST_MAP_BY_NAME,
    PVC,
    DynamoComponentDeploymentSharedSpec,
)


class DynamoGraphDeploymentSpec(ApiModel):
    """Desired state of a graph deployment."""

    pvcs: Annotated[list[PVC], Field(max_length=MAX_PVCS, json_schema_extra=LIST_MAP_BY_NAME)] | (
        None
    ) = None
    """Persistent volume claims that services can mount by name."""
    services: Annotated[
        dict[str, DynamoComponentDeploymentSharedSpec], Field(max_length=MAX_SERVICES)
    ] = Field(default_factory=dict)
    """Services of the graph, by name; each becomes a DynamoComponentDeployment."""
    envs: Annotated[list[EnvVar], Field(json_schema_extra=LIST_MAP_BY_NAME)] | None = None
    """Environment variables for every service; a service's own envs win on a name clash."""
    backend_framework: BackendFramework | None = None
    """Backend framework of the workers (sglang, vllm or trtllm); immutable."""
    dynamo_component: str | None = None
    """A built artifact (``name:version``) whose services the graph runs, in the image the
    operator builds from it; ``services`` then overrides the artifact's service settings."""


class ServiceReplicaStatus(ApiModel):
    """Replica counts of the workload that backs one service."""

    component_kind: ServiceComponentKind | None = None
    """Kind of workload backing the service."""
    component_name: str | None = None
    """Name of the workload backing the service."""
    replicas: Annotated[int, Field(ge=0)] | None = None
    """Desired replicas of the workload."""
    updated_replicas: Annotated[int, Field(ge=0)] | None = None
    """Replicas running the current template."""
    ready_replicas: Annotated[int, Field(ge=0)] | None = None
    """Replicas that are ready."""
    available_replicas: Annotated[int, Field(ge=0)] | None = None
    """Replicas that have been ready long enough to be available."""


class RollingUpdatePhase(StrEnum):
    """Where a rolling update of the graph's workers stands. Pending and InProgress tell a
    planner to hold its scaling; Completed, Failed (or no rolling update) do not."""

    PENDING = "Pending"
    IN_PROGRESS = "InProgress"
    COMPLETED = "Completed"
    FAILED = "Failed"


RFC3339_TIME = {"format": "date-time"}
"""Schema of a ``metav1.Time`` written as an RFC 3339 string."""


class RollingUpdateStatus(ApiModel):
    """The latest rolling update of the graph's worker services (worker, prefill, decode)."""

    phase: RollingUpdatePhase | None = None
    """Pending, InProgress, Completed or Failed."""
    start_time: Annotated[str, Field(json_schema_extra=RFC3339_TIME)] | None = None
    """When the rolling update began (RFC 3339)."""
    end_time: Annotated[str, Field(json_schema_extra=RFC3339_TIME)] | None = None
    """When the rolling update completed or failed (RFC 3339)."""
    updated_services: list[str] | None = None
    """Worker services already running their new spec on every replica, sorted."""


class DynamoGraphDeploymentStatus(ApiModel):
    """Observed state of a graph deployment."""

    state: GraphDeploymentState | None = None
    """High-level lifecycle state: initializing, pending, successful or failed."""
    observed_generation: Annotated[int, Field(ge=0)] | None = None
    """The metadata.generation this status describes."""
    conditions: Conditions | None = None
    """Latest observations of the graph deployment (Ready)."""
    services: dict[str, ServiceReplicaStatus] | None = None
    """Replica status of each service, by service name."""
    rolling_update: RollingUpdateStatus | None = None
    """The latest rolling update of the worker services; absent until the graph first had one."""


class DynamoGraphDeployment(ApiModel):
    """DynamoGraphDeployment deploys a complete Dynamo inference graph."""

    model_config = ConfigDict(title=KIND_GRAPH_DEPLOYMENT)

    api_version: str = API_VERSION
    """API version of this object."""
    kind: Literal["DynamoGraphDeployment"] = KIND_GRAPH_DEPLOYMENT
    """Kind of this object."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""
    spec: DynamoGraphDeploymentSpec
    """Desired state of the graph deployment."""
    status: DynamoGraphDeploymentStatus | None = None
    """Observed state of the graph deployment."""
