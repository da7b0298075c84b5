"""One component of a v1beta1 graph (an entry of ``spec.components``), also a v1beta1 DCD's spec.

The v1beta1 component says in Kubernetes' own words what v1alpha1 says in Dynamo's: the pod is a
``corev1.PodTemplateSpec`` whose container named ``main`` runs Dynamo (resources, env, probes and
mounts included), and every other container is a sidecar. Only what our v1alpha1 can express is
here (see ``dynamo_operator.conversion``); upstream v1beta1 fields we do not implement are not in
the schema, so the API server refuses them as unknown. The ``experimental`` block is the exception:
upstream's examples use it, so it is accepted and validation refuses it with the reason.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, JsonValue

from dynamo_operator.api.base import ApiModel, FreeFormObject, NonNegativeInt32, Quantity
from dynamo_operator.api.constants import BetaComponentType
from dynamo_operator.api.shared_spec import ModelReference, MultinodeSpec
from dynamo_operator.api.v1beta1.experimental import Experimental

#: A component's name: the key children are named after, so a DNS label (any case).
COMPONENT_NAME_PATTERN = r"^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$"
COMPONENT_NAME_MAX_LENGTH = 63

_TYPE_IMMUTABLE_RULE: dict[str, JsonValue] = {
    # A transition rule: evaluated on updates only, against the same list-map entry (or DCD spec).
    "rule": "!has(oldSelf.type) || (has(self.type) && self.type == oldSelf.type)",
    "message": "type is immutable once set",
}

ComponentName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=COMPONENT_NAME_MAX_LENGTH,
        pattern=COMPONENT_NAME_PATTERN,
    ),
]


class ScalingAdapter(ApiModel):
    """Presence enables a DynamoGraphDeploymentScalingAdapter for the component (an empty object:
    ``scalingAdapter: {}``); the adapter then owns the component's replicas."""


class CompilationCache(ApiModel):
    """A user-created PersistentVolumeClaim mounted as the backend's compilation cache."""

    pvc_name: Annotated[str, Field(min_length=1)]
    """Name of the PersistentVolumeClaim holding the cache."""
    mount_path: str | None = None
    """Path of the cache in the main container; vLLM's default cache directory when unset."""


class Component(ApiModel):
    """One component of a graph: what to run (the pod template) and how to scale it."""

    model_config = ConfigDict(
        json_schema_extra={"x-kubernetes-validations": [_TYPE_IMMUTABLE_RULE]}
    )

    name: ComponentName
    """Name of the component, unique in the graph ignoring case; children are named after it."""
    type: BetaComponentType | None = None
    """Role of the component (frontend, worker, prefill, decode, planner or epp); immutable once
    set."""
    replicas: NonNegativeInt32 | None = None
    """Desired number of pods (of leader/worker groups when multinode); 1 when unset."""
    multinode: MultinodeSpec | None = None
    """Spread each replica over several nodes."""
    model_ref: ModelReference | None = None
    """Base model the component serves (DynamoModels find its pods through it)."""
    scaling_adapter: ScalingAdapter | None = None
    """Scale the component through a DynamoGraphDeploymentScalingAdapter (present: enabled)."""
    shared_memory_size: Quantity | None = None
    """Size of the tmpfs mounted at /dev/shm; 8Gi when unset, "0" for none."""
    compilation_cache: CompilationCache | None = None
    """A PersistentVolumeClaim mounted as the backend's compilation cache."""
    pod_template: FreeFormObject | None = None
    """The pods' template (corev1.PodTemplateSpec): the container named main runs Dynamo and
    must have an image; every other container is a sidecar."""
    experimental: Experimental | None = None
    """Upstream's preview features (gpuMemoryService, failover, checkpoint): accepted, and
    refused when turned on, as this operator does not implement them."""
