"""Upstream's experimental service fields: GPU Memory Service, active-passive failover, checkpoints.

The schema accepts them as upstream Dynamo writes them, so that a graph copied from upstream's
examples reaches this operator's own answer instead of an "unknown field" from the API server;
this operator does not implement them, and validation refuses a service that turns one on
(``dynamo_operator.validation.experimental`` says why). Upstream's shapes drift between releases
(``enabled`` dropped at v1beta1, modes renamed, fields added), so each block keeps the fields it
does not list (``x-kubernetes-preserve-unknown-fields``) and types its modes as plain strings: any
upstream release's form is kept, converted between versions, and refused with the same message.
"""

from __future__ import annotations

from pydantic import ConfigDict

from dynamo_operator.api.base import (
    PRESERVE_UNKNOWN_FIELDS,
    ApiModel,
    FreeFormObject,
    NonNegativeInt32,
    StrictBool,
)


class GPUMemoryServiceSpec(ApiModel):
    """GPU Memory Service (GMS): a sidecar holding the model weights in GPU memory that the
    engine loads from (``--load-format gms``), the GPUs shared through Dynamic Resource Allocation.
    Not supported by this operator: a service that enables it is refused."""

    model_config = ConfigDict(json_schema_extra=PRESERVE_UNKNOWN_FIELDS)

    enabled: StrictBool | None = None
    """Turn GMS on (upstream v1alpha1); false or unset leaves it off."""
    mode: str | None = None
    """Topology upstream renders: intraPod (a sidecar in the engine's pod) or interPod."""
    device_class_name: str | None = None
    """DRA DeviceClass the GPUs are requested from (upstream's default: gpu.nvidia.com)."""


class FailoverSpec(ApiModel):
    """Active-passive failover: the main container cloned into an active and a standby engine
    sharing the GPUs through GMS. Not supported by this operator: a service that enables it is
    refused."""

    model_config = ConfigDict(json_schema_extra=PRESERVE_UNKNOWN_FIELDS)

    enabled: StrictBool | None = None
    """Turn failover on (upstream v1alpha1); false or unset leaves it off."""
    mode: str | None = None
    """Topology upstream renders (intraPod or interPod); must match gpuMemoryService.mode."""
    num_shadows: NonNegativeInt32 | None = None
    """Standby engines per rank (upstream creates exactly one)."""


class CheckpointSpec(ApiModel):
    """Checkpoint/restore of the worker's container (CRIU and cuda-checkpoint, driven by
    upstream's snapshot agent) for faster cold starts. Not supported by this operator: a service
    that enables it is refused."""

    model_config = ConfigDict(json_schema_extra=PRESERVE_UNKNOWN_FIELDS)

    enabled: StrictBool | None = None
    """Turn checkpointing on; false or unset leaves it off."""
    mode: str | None = None
    """How the checkpoint is created upstream: Auto or Manual (deprecated upstream)."""
    checkpoint_ref: str | None = None
    """Name of an existing checkpoint to restore from."""
    identity: FreeFormObject | None = None
    """Inputs that identify an equivalent checkpoint (model, backendFramework, ...)."""
