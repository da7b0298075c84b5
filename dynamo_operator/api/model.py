"""DynamoModel: a model (base or LoRA adapter) served by the graph's workers."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from dynamo_operator.api.base import ApiModel, ObjectMeta
from dynamo_operator.api.conditions import Conditions
from dynamo_operator.api.constants import API_VERSION, KIND_MODEL, ModelType


class ModelSource(ApiModel):
    """Where the model's weights come from."""

    uri: str
    """Location of the weights: s3://bucket/path or hf://org/model@revision."""


class DynamoModelSpec(ApiModel):
    """Desired state of a model."""

    model_name: str
    """Full model identifier as clients request it (e.g. the LoRA adapter's name)."""
    base_model_name: str
    """Base model this model runs on; matches the services' modelRef.name."""
    model_type: ModelType = ModelType.BASE
    """Type of model: base, lora or adapter."""
    source: ModelSource | None = None
    """Source of the weights; required for LoRA models."""


class ModelEndpoint(ApiModel):
    """One worker pod serving the model."""

    address: str | None = None
    """Base URL of the endpoint, e.g. http://10.0.1.5:9090."""
    pod_name: str | None = None
    """Name of the pod behind the endpoint."""
    ready: bool | None = None
    """Whether the model is loaded and ready on this endpoint."""
    message: str | None = None
    """Why the model is not ready on this endpoint (the last load attempt's failure)."""


class DynamoModelStatus(ApiModel):
    """Observed state of a model."""

    observed_generation: Annotated[int, Field(ge=0)] | None = None
    """The metadata.generation this status describes."""
    endpoints: list[ModelEndpoint] | None = None
    """Endpoints currently serving (or loading) the model."""
    ready_endpoints: Annotated[int, Field(ge=0)] | None = None
    """Number of ready endpoints."""
    total_endpoints: Annotated[int, Field(ge=0)] | None = None
    """Number of endpoints."""
    conditions: Conditions | None = None
    """Latest observations of the model."""


class DynamoModel(ApiModel):
    """DynamoModel manages the lifecycle of a model served by Dynamo workers."""

    model_config = ConfigDict(title=KIND_MODEL)

    api_version: str = API_VERSION
    """API version of this object."""
    kind: Literal["DynamoModel"] = KIND_MODEL
    """Kind of this object."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""
    spec: DynamoModelSpec
    """Desired state of the model."""
    status: DynamoModelStatus | None = None
    """Observed state of the model."""
