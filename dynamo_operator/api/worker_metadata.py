"""DynamoWorkerMetadata: what a Dynamo worker publishes about itself under Kubernetes discovery.

Written by Dynamo's runtime, never by the operator: each worker server-side-applies one named
after its pod and owned by it, and the frontend reads them to find the worker's endpoints and
models. The operator only defines the kind (its CRD) and lets the pods write it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from dynamo_operator.api.base import ApiModel, FreeFormObject, ObjectMeta
from dynamo_operator.api.constants import API_VERSION, KIND_WORKER_METADATA


class DynamoWorkerMetadataSpec(ApiModel):
    """What the worker publishes."""

    data: FreeFormObject | None = None
    """The worker's endpoints, model cards and event channels, as Dynamo's runtime writes them."""


class DynamoWorkerMetadata(ApiModel):
    """DynamoWorkerMetadata is published by a Dynamo worker pod for Kubernetes discovery."""

    model_config = ConfigDict(title=KIND_WORKER_METADATA)

    api_version: str = API_VERSION
    """API version of this object."""
    kind: Literal["DynamoWorkerMetadata"] = KIND_WORKER_METADATA
    """Kind of this object."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Standard object metadata."""
    spec: DynamoWorkerMetadataSpec
    """What the worker publishes."""
