"""DynamoGraphDeploymentScalingAdapter: one component's replicas, exposed through a scale
subresource so HPA, KEDA, ``kubectl scale`` and Dynamo's planner can drive them.

The operator creates one adapter per component whose ``scalingAdapter`` is enabled, named
``<graph>-<lowercase component>``; from then on the adapter's ``spec.replicas`` is the source of
truth the operator copies into the graph. Both versions carry the same data: v1alpha1 names the
component ``dgdRef.serviceName``, v1beta1 ``dgdRef.componentName`` (a lossless rename).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from dynamo_operator.api.base import ApiModel, NonNegativeInt32, ObjectMeta
from dynamo_operator.api.constants import API_VERSION, BETA_API_VERSION, KIND_SCALING_ADAPTER

NonEmptyName = Annotated[str, Field(min_length=1)]


class ScalingAdapterStatus(ApiModel):
    """Observed state of a scaling adapter (the scale subresource reads it)."""

    replicas: NonNegativeInt32 | None = None
    """Replicas the adapter last applied to the graph's component."""
    selector: str | None = None
    """Label selector of the component's pods, in its string form (the scale subresource's)."""
    last_scale_time: Annotated[str, Field(json_schema_extra={"format": "date-time"})] | None = None
    """When the adapter last changed the component's replicas (RFC 3339)."""


class DgdRef(ApiModel):
    """The graph component a v1alpha1 adapter scales."""

    name: NonEmptyName
    """Name of the DynamoGraphDeployment, in the adapter's namespace."""
    service_name: NonEmptyName
    """Key of the service in the graph's spec.services."""


class ScalingAdapterSpec(ApiModel):
    """Desired state of a v1alpha1 scaling adapter."""

    replicas: NonNegativeInt32
    """Desired replicas of the component (the scale subresource writes it)."""
    dgd_ref: DgdRef
    """The graph and service this adapter scales."""


class DynamoGraphDeploymentScalingAdapter(ApiModel):
    """DynamoGraphDeploymentScalingAdapter scales one service of a DynamoGraphDeployment."""

    model_config = ConfigDict(title=KIND_SCALING_ADAPTER)

    api_version: str = API_VERSION
    """API version of this object."""
    kind: Literal["DynamoGraphDeploymentScalingAdapter"] = KIND_SCALING_ADAPTER
    """Kind of this object."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""
    spec: ScalingAdapterSpec
    """Desired state of the scaling adapter."""
    status: ScalingAdapterStatus | None = None
    """Observed state of the scaling adapter."""


class BetaDgdRef(ApiModel):
    """The graph component a v1beta1 adapter scales."""

    name: NonEmptyName
    """Name of the DynamoGraphDeployment, in the adapter's namespace."""
    component_name: NonEmptyName
    """Name of the component in the graph's spec.components."""


class BetaScalingAdapterSpec(ApiModel):
    """Desired state of a v1beta1 scaling adapter."""

    replicas: NonNegativeInt32
    """Desired replicas of the component (the scale subresource writes it)."""
    dgd_ref: BetaDgdRef
    """The graph and component this adapter scales."""


class BetaDynamoGraphDeploymentScalingAdapter(ApiModel):
    """DynamoGraphDeploymentScalingAdapter scales one component of a DynamoGraphDeployment."""

    model_config = ConfigDict(title=KIND_SCALING_ADAPTER)

    api_version: str = BETA_API_VERSION
    """API version of this object."""
    kind: Literal["DynamoGraphDeploymentScalingAdapter"] = KIND_SCALING_ADAPTER
    """Kind of this object."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""
    spec: BetaScalingAdapterSpec
    """Desired state of the scaling adapter."""
    status: ScalingAdapterStatus | None = None
    """Observed state of the scaling adapter."""
