"""Upstream's experimental service fields, refused: this operator does not implement them.

Upstream Dynamo renders ``gpuMemoryService``, ``failover`` and ``checkpoint`` (v1beta1:
``experimental.*``) into things this operator neither creates nor can test without the hardware
and node software they drive: GPUs shared through Dynamic Resource Allocation (a
ResourceClaimTemplate per service, the NVIDIA GPU DRA driver's DeviceClass, a GMS sidecar), an
active and a standby engine on those GPUs, a snapshot agent running CRIU and cuda-checkpoint on
the node. Rendering the pod alone would give a pod that cannot be scheduled or a worker that
waits for a checkpoint nobody takes, so a service that turns one on is refused, with the reason,
at the field where the user wrote it: by admission, by ``dynamo-operator validate``, and (for an
object that got in without the webhook) in the object's status, like any invalid spec. A block
that is present but off (``enabled: false``) changes nothing upstream either and is accepted.
"""

from __future__ import annotations

from typing import Final

from dynamo_operator.api import DynamoComponentDeploymentSharedSpec
from dynamo_operator.field_paths import join_path
from dynamo_operator.validation.collector import IssueCollector

_REMEDY: Final = "remove the field to deploy the service without it"
GPU_MEMORY_SERVICE_REFUSED: Final = (
    "not supported by this operator yet: GPU Memory Service needs Dynamic Resource Allocation "
    "(the NVIDIA GPU DRA driver and its DeviceClass, and a ResourceClaimTemplate sharing the "
    "GPUs between the engine and a GMS sidecar), which this operator does not create; " + _REMEDY
)
FAILOVER_REFUSED: Final = (
    "not supported by this operator yet: failover runs an active and a standby engine on the "
    "same GPUs through GPU Memory Service and Dynamic Resource Allocation (the NVIDIA GPU DRA "
    "driver), which this operator does not create; " + _REMEDY
)
CHECKPOINT_REFUSED: Final = (
    "not supported by this operator yet: checkpoint/restore needs upstream's snapshot agent on "
    "the nodes (CRIU and cuda-checkpoint) and the checkpoint resources it works with, which "
    "this operator does not manage; " + _REMEDY
)


def check_experimental(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    """An error at each experimental field ``service`` turns on (v1alpha1 names; a v1beta1
    object's paths are mapped to ``experimental.*`` by its validation)."""
    blocks = (
        ("gpuMemoryService", service.gpu_memory_service, GPU_MEMORY_SERVICE_REFUSED),
        ("failover", service.failover, FAILOVER_REFUSED),
        ("checkpoint", service.checkpoint, CHECKPOINT_REFUSED),
    )
    for name, block, reason in blocks:
        if block is not None and block.enabled is True:
            issues.error(join_path(path, name), reason)
