"""A v1beta1 component's ``experimental`` block: upstream's preview features, in v1beta1's words.

v1beta1 groups what v1alpha1 has as service fields (``gpuMemoryService``, ``failover``,
``checkpoint``) under ``experimental``, and a GMS or failover block turns the feature on by being
there (v1alpha1 says ``enabled: true``). This operator implements none of them: the schema accepts
upstream's forms (each block keeps the fields it does not list, as in
``dynamo_operator.api.experimental``) and validation refuses a component that uses one.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from dynamo_operator.api.base import ApiModel, FreeFormObject, NonNegativeInt32

#: A boolean the CRD declares as such: "true" or 1 are refused, not coerced.
StrictBool = Annotated[bool, Field(strict=True)]


class _Preserving(ApiModel):
    """A block the API server keeps whole: fields of other upstream releases included."""

    model_config = ConfigDict(json_schema_extra={"x-kubernetes-preserve-unknown-fields": True})


class GPUMemoryService(_Preserving):
    """GPU Memory Service (GMS), on when present: a sidecar holding the weights in GPU memory,
    the GPUs shared through Dynamic Resource Allocation. Not supported by this operator."""

    mode: str | None = None
    """Topology upstream renders: IntraPod (a sidecar in the engine's pod) or InterPod."""
    device_class_name: str | None = None
    """DRA DeviceClass the GPUs are requested from (upstream's default: gpu.nvidia.com)."""
    extra_client_containers: list[str] | None = None
    """Other containers of the pod template wired as GMS clients (IntraPod)."""
    extra_client_pods: list[FreeFormObject] | None = None
    """Additional GMS client pods (InterPod; reserved upstream)."""
    enabled: StrictBool | None = None
    """Older upstream v1beta1 form: false turns the block off."""


class Failover(_Preserving):
    """Active-passive failover, on when present: an active and a standby engine sharing the GPUs
    through GMS. Not supported by this operator."""

    mode: str | None = None
    """Topology upstream renders (IntraPod or InterPod); must match gpuMemoryService.mode."""
    num_shadows: NonNegativeInt32 | None = None
    """Standby engines per rank."""
    enabled: StrictBool | None = None
    """Older upstream v1beta1 form: false turns the block off."""


class Checkpoint(_Preserving):
    """Checkpoint/restore of the worker's container (CRIU and cuda-checkpoint, driven by
    upstream's snapshot agent). Not supported by this operator."""

    enabled: StrictBool | None = None
    """Turn checkpointing on; false or unset leaves it off."""
    mode: str | None = None
    """Deprecated upstream: Auto or Manual."""
    startup_policy: str | None = None
    """When workers start relative to the checkpoint: Immediate or WaitForCheckpoint."""
    deletion_policy: str | None = None
    """What happens to an automatic checkpoint with its graph: Delete or Retain."""
    checkpoint_ref: str | None = None
    """Name of an existing snapshot to restore from."""
    identity: FreeFormObject | None = None
    """Deprecated upstream: inputs that identify an equivalent checkpoint."""
    target_container_name: str | None = None
    """Container to snapshot and restore (upstream's default: main)."""
    job: FreeFormObject | None = None
    """The capture pod's customisation (gmsClientContainers, podTemplate)."""


class Experimental(ApiModel):
    """Upstream's preview features, outside v1beta1's compatibility promise. None is supported
    by this operator: a component that turns one on is refused."""

    gpu_memory_service: GPUMemoryService | None = None
    """GPU Memory Service (v1alpha1: the service's gpuMemoryService)."""
    failover: Failover | None = None
    """Active-passive failover (v1alpha1: the service's failover)."""
    checkpoint: Checkpoint | None = None
    """Checkpoint/restore (v1alpha1: the service's checkpoint)."""
