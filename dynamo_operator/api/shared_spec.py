"""The service entry shared by a graph's services and a component deployment's spec.

``DynamoComponentDeploymentSharedSpec`` is each value of ``DynamoGraphDeployment.spec.services``
and is inlined into ``DynamoComponentDeployment.spec``. Only the fields the operator acts on are
modelled; anything else a user or a newer CRD sends is kept as an extra field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import ConfigDict, Field, JsonValue, model_validator

from dynamo_operator.api.base import (
    INT32_MAX,
    PRESERVE_UNKNOWN_FIELDS,
    ApiModel,
    EnvVar,
    FreeFormObject,
    NonNegativeInt32,
    Quantity,
    StrictBool,
)
from dynamo_operator.api.constants import (
    DEFAULT_MULTINODE_NODE_COUNT,
    MIN_MULTINODE_NODE_COUNT,
)
from dynamo_operator.api.experimental import CheckpointSpec, FailoverSpec, GPUMemoryServiceSpec
from dynamo_operator.api.service_pvc import ServicePVC

#: Lists keyed by ``name``: server-side apply merges them entry by entry.
LIST_MAP_BY_NAME: dict[str, Any] = {
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
}


class ResourceItem(ApiModel):
    """Amounts of one side (requests or limits) of a component's resources."""

    cpu: Quantity | None = None
    """CPU amount, e.g. 500m or 2."""
    memory: Quantity | None = None
    """Memory amount, e.g. 8Gi."""
    gpu: Quantity | None = None
    """Number of GPUs; becomes nvidia.com/gpu unless gpuType names another resource."""
    gpu_type: str | None = None
    """Resource name used for gpu instead of nvidia.com/gpu (e.g. gpu.intel.com/xe)."""
    custom: dict[str, Quantity] | None = None
    """Additional resources by their raw Kubernetes resource name."""


class ResourceClaim(ApiModel):
    """A dynamic resource claim made available to the main container."""

    name: str
    """Name of an entry in the pod's resourceClaims."""
    request: str | None = None
    """Name of one request inside that claim; all requests when empty."""


class Resources(ApiModel):
    """Resources requested and limits for this component, including CPU, memory, GPUs."""

    requests: ResourceItem | None = None
    """Minimum resources the component needs to be scheduled."""
    limits: ResourceItem | None = None
    """Maximum resources the component may use."""
    claims: Annotated[list[ResourceClaim], Field(json_schema_extra=LIST_MAP_BY_NAME)] | None = None
    """Dynamic resource claims used by the main container."""


class Autoscaling(ApiModel):
    """Horizontal autoscaling of the component (autoscaling/v2 HorizontalPodAutoscaler)."""

    enabled: StrictBool | None = None
    """Create a HorizontalPodAutoscaler for this component when true."""
    min_replicas: NonNegativeInt32 | None = None
    """Lower bound of the replica count."""
    max_replicas: NonNegativeInt32 | None = None
    """Upper bound of the replica count."""
    behavior: FreeFormObject | None = None
    """Scaling behaviour (autoscaling/v2 HorizontalPodAutoscalerBehavior)."""
    metrics: list[FreeFormObject] | None = None
    """Metrics to scale on (autoscaling/v2 MetricSpec); CPU utilisation 80% when empty."""


class ScalingAdapter(ApiModel):
    """Scale the service through a DynamoGraphDeploymentScalingAdapter named
    ``<graph>-<lowercase service>``, whose scale subresource HPA, KEDA, ``kubectl scale`` and
    Dynamo's planner drive; the adapter then owns the service's replicas."""

    enabled: StrictBool = False
    """Create the adapter when true; an empty scalingAdapter leaves it off (upstream v1alpha1)."""


class IngressTLSSpec(ApiModel):
    """TLS configuration of the generated Ingress or VirtualService."""

    secret_name: str | None = None
    """Name of a Secret holding the TLS certificate and key."""


class IngressSpec(ApiModel):
    """How the component is exposed outside the cluster (Ingress or Istio VirtualService)."""

    enabled: StrictBool | None = None
    """Expose the component through an Ingress or VirtualService when true."""
    host: str | None = None
    """Base host name routed to this component; required when enabled."""
    use_virtual_service: StrictBool | None = None
    """Create an Istio VirtualService instead of an Ingress."""
    virtual_service_gateway: str | None = None
    """Gateway the VirtualService attaches to."""
    host_prefix: str | None = None
    """Prefix added before the host."""
    annotations: dict[str, str] | None = None
    """Annotations of the generated Ingress or VirtualService."""
    labels: dict[str, str] | None = None
    """Labels of the generated Ingress or VirtualService."""
    tls: IngressTLSSpec | None = None
    """TLS configuration of the Ingress or VirtualService."""
    host_suffix: str | None = None
    """Suffix appended after the host."""
    ingress_controller_class_name: str | None = None
    """Ingress class of the controller serving the Ingress (e.g. nginx)."""


_PVC_CREATE_RULE: dict[str, JsonValue] = {
    "rule": "!has(self.create) || !self.create || "
    "(has(self.storageClass) && has(self.size) && has(self.volumeAccessMode))",
    "message": "storageClass, size and volumeAccessMode are required when create is true",
}


class PVC(ApiModel):
    """A persistent volume claim the operator may create and services may mount."""

    model_config = ConfigDict(json_schema_extra={"x-kubernetes-validations": [_PVC_CREATE_RULE]})

    create: StrictBool | None = None
    """Create the claim when true; otherwise an existing claim of this name is used."""
    name: str
    """Name of the PersistentVolumeClaim."""
    storage_class: str | None = None
    """Storage class of the created claim; required when create is true."""
    size: Quantity | None = None
    """Requested size of the created claim, e.g. 100Gi; required when create is true."""
    volume_access_mode: str | None = None
    """Access mode of the created claim (e.g. ReadWriteMany); required when create is true."""

    @model_validator(mode="after")
    def _require_creation_fields(self) -> PVC:
        if self.create:
            missing = [
                alias
                for alias, value in (
                    ("storageClass", self.storage_class),
                    ("size", self.size),
                    ("volumeAccessMode", self.volume_access_mode),
                )
                if value is None
            ]
            if missing:
                raise ValueError(f"{', '.join(missing)} required when create is true")
        return self


class VolumeMount(ApiModel):
    """Mounts one of the graph's PVCs into the component's main container."""

    name: str
    """Name of a PVC declared in the graph's spec.pvcs."""
    mount_point: str | None = None
    """Path inside the container; required unless useAsCompilationCache is true."""
    use_as_compilation_cache: StrictBool = False
    """Use this volume as the backend's compilation cache (VLLM_CACHE_ROOT for vLLM)."""


class SharedMemorySpec(ApiModel):
    """The tmpfs mounted at /dev/shm (8Gi by default)."""

    disabled: StrictBool | None = None
    """Do not mount a shared memory volume when true."""
    size: Quantity | None = None
    """Size limit of the shared memory volume; 8Gi when unset."""


class ExtraPodMetadata(ApiModel):
    """Labels and annotations added to the component's pods."""

    annotations: dict[str, str] | None = None
    """Annotations added to the pod template."""
    labels: dict[str, str] | None = None
    """Labels added to the pod template."""


class ExtraPodSpec(ApiModel):
    """A partial corev1.PodSpec merged over the generated pod spec, plus the main container."""

    model_config = ConfigDict(json_schema_extra=PRESERVE_UNKNOWN_FIELDS)

    main_container: FreeFormObject | None = None
    """A partial corev1.Container merged over the generated main container."""

    def pod_spec_overrides(self) -> dict[str, Any]:
        """The PodSpec fields (everything but mainContainer), camelCase as the user wrote them."""
        return dict(self.model_extra or {})


class ModelReference(ApiModel):
    """The base model a component serves."""

    name: Annotated[str, Field(min_length=1)]
    """Name of the base model (e.g. Qwen/Qwen3-0.6B); DynamoModels name it in baseModelName."""
    revision: str | None = None
    """Revision of the base model, for information."""


class MultinodeSpec(ApiModel):
    """Spreads one replica of the component over several nodes (leader and workers)."""

    node_count: Annotated[
        int,
        Field(
            strict=True,
            ge=MIN_MULTINODE_NODE_COUNT,
            le=INT32_MAX,
            json_schema_extra={"format": "int32"},
        ),
    ] = DEFAULT_MULTINODE_NODE_COUNT
    """Number of nodes each replica spans."""


def nodes_per_replica(multinode: MultinodeSpec | Mapping[str, Any] | None) -> int:
    """How many nodes (pods) one replica spans: the one definition of that rule.

    No ``multinode`` block means a single-node component (1). A block without ``nodeCount`` means
    the default of 2. Takes the typed block or its wire form (camelCase dict) so the builders, which
    read wire dicts, and validation, which also reads raw objects, agree with the model; a
    ``nodeCount`` that is not an integer (only possible before validation) reads as the default.
    """
    if isinstance(multinode, MultinodeSpec):
        return multinode.node_count
    if not isinstance(multinode, Mapping):
        return 1
    count = multinode.get("nodeCount", DEFAULT_MULTINODE_NODE_COUNT)
    if isinstance(count, bool) or not isinstance(count, int):
        return DEFAULT_MULTINODE_NODE_COUNT
    return count


class DynamoComponentDeploymentSharedSpec(ApiModel):
    """One service of a graph: what to run and how to expose, scale and configure it."""

    annotations: dict[str, str] | None = None
    """Annotations added to the resources generated for this component."""
    labels: dict[str, str] | None = None
    """Labels added to the resources generated for this component."""
    service_name: str | None = None
    """Name of the component; the graph sets it to the service's key."""
    component_type: str | None = None
    """Role of the component; frontend, worker, prefill, decode and planner get own defaults."""
    sub_component_type: str | None = None
    """Sub-role of the component (e.g. prefill), published as a pod label."""
    dynamo_namespace: str | None = None
    """Dynamo namespace of the component; all services of a graph must agree."""
    resources: Resources | None = None
    """Resources requested and limits for this component, including CPU, memory and GPUs."""
    autoscaling: Autoscaling | None = None
    """Autoscaling config for this component (replica range, metrics, behaviour)."""
    envs: Annotated[list[EnvVar], Field(json_schema_extra=LIST_MAP_BY_NAME)] | None = None
    """Additional environment variables for the main container; they win over defaults."""
    env_from_secret: str | None = None
    """Name of a Secret whose key/value pairs become environment variables of the main container."""
    volume_mounts: list[VolumeMount] | None = None
    """PVCs declared at the graph level to mount into the main container."""
    pvc: ServicePVC | None = None
    """A claim of this service alone (seed 000's form): created if missing and mounted."""
    ingress: IngressSpec | None = None
    """Ingress config to expose the component outside the cluster (or through a service mesh)."""
    shared_memory: SharedMemorySpec | None = None
    """The tmpfs mounted at /dev/shm (enable/disable and size)."""
    extra_pod_metadata: ExtraPodMetadata | None = None
    """Labels and annotations added to the created pods."""
    extra_pod_spec: ExtraPodSpec | None = None
    """Overrides of the generated pod spec, and of the main container via mainContainer."""
    liveness_probe: FreeFormObject | None = None
    """Liveness probe (corev1.Probe) replacing the default one wholesale."""
    readiness_probe: FreeFormObject | None = None
    """Readiness probe (corev1.Probe) replacing the default one wholesale."""
    replicas: NonNegativeInt32 | None = None
    """Desired number of pods (of leader/worker groups when multinode); 1 when unset."""
    multinode: MultinodeSpec | None = None
    """Spread each replica over several nodes."""
    scaling_adapter: ScalingAdapter | None = None
    """Scale this service through a DynamoGraphDeploymentScalingAdapter (off unless enabled):
    while it is on, change replicas on the adapter, not here."""
    model_ref: ModelReference | None = None
    """Base model the component serves: its pods get the base model's hash label and the
    headless Service dynamo-model-<hash>, where DynamoModels find them."""
    gpu_memory_service: GPUMemoryServiceSpec | None = None
    """Upstream's GPU Memory Service (experimental): not supported, refused when enabled."""
    failover: FailoverSpec | None = None
    """Upstream's active-passive failover (experimental): not supported, refused when enabled."""
    checkpoint: CheckpointSpec | None = None
    """Upstream's checkpoint/restore (experimental): not supported, refused when enabled."""

    @property
    def effective_replicas(self) -> int:
        return 1 if self.replicas is None else self.replicas

    @property
    def node_count(self) -> int:
        """Nodes per replica: 1 for a single-node component."""
        return nodes_per_replica(self.multinode)

    @property
    def is_multinode(self) -> bool:
        return self.node_count > 1
