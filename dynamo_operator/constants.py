"""Names and numbers that form the operator's contract with users, images and dashboards.

Label and annotation keys, env var names, ports and default values are quoted verbatim from the
upstream operator (and its "Operator Default Values Injection" document) so that existing
manifests, images and dashboards keep working. Grouped in small namespaces instead of one flat list
so that call sites read as ``Labels.SELECTOR`` or ``Ports.SYSTEM``.
"""

from __future__ import annotations

from typing import Final


class Labels:
    SELECTOR: Final = "nvidia.com/selector"
    COMPONENT: Final = "nvidia.com/dynamo-component"
    COMPONENT_TYPE: Final = "nvidia.com/dynamo-component-type"
    SUB_COMPONENT_TYPE: Final = "nvidia.com/dynamo-sub-component-type"
    DYNAMO_NAMESPACE: Final = "nvidia.com/dynamo-namespace"
    GRAPH_DEPLOYMENT_NAME: Final = "nvidia.com/dynamo-graph-deployment-name"
    METRICS_ENABLED: Final = "nvidia.com/metrics-enabled"
    ROLE: Final = "role"
    INSTANCE_ID: Final = "instance-id"
    MANAGED_BY: Final = "nvidia.com/managed-by"
    DISCOVERY_BACKEND: Final = "nvidia.com/dynamo-discovery-backend"
    """On component Services with Kubernetes discovery: Dynamo's frontend watches only the
    EndpointSlices of Services labelled ``kubernetes`` here."""
    DISCOVERY_ENABLED: Final = "nvidia.com/dynamo-discovery-enabled"
    """``true`` on the Services of components the frontend must discover (all but frontends)."""
    BASE_MODEL_HASH: Final = "nvidia.com/dynamo-base-model-hash"
    """On the pods and the headless Service of components that serve a base model (``modelRef``):
    the first 8 hex digits of the SHA-256 of its name, a valid label value whatever the name."""


MANAGED_BY_OPERATOR: Final = "dynamo-operator"
"""Value of ``Labels.MANAGED_BY`` on objects the operator shares between graphs of a namespace."""


class Annotations:
    ENABLE_METRICS: Final = "nvidia.com/enable-metrics"
    DISABLE_IMAGE_PULL_SECRET_DISCOVERY: Final = "nvidia.com/disable-image-pull-secret-discovery"
    VOLCANO_GROUP_NAME: Final = "scheduling.k8s.io/group-name"
    BASE_MODEL: Final = "nvidia.com/dynamo-base-model"
    """The base model's name in full, next to its hash label, for humans."""
    DEPLOYMENT_STRATEGY: Final = "nvidia.com/deployment-strategy"
    """``RollingUpdate`` or ``Recreate``: the strategy of the component's Deployment."""
    ROLLING_UPDATE_MAX_SURGE: Final = "nvidia.com/deployment-rolling-update-max-surge"
    ROLLING_UPDATE_MAX_UNAVAILABLE: Final = "nvidia.com/deployment-rolling-update-max-unavailable"
    DISCOVERY_BACKEND: Final = "nvidia.com/dynamo-discovery-backend"
    """``kubernetes`` or ``etcd`` on a graph (``metadata.annotations``, copied to each component it
    generates) or a service/component (``annotations``, which wins): how its processes discover
    each other, over the operator's choice (``--etcdAddr``)."""


GRAPH_PROPAGATED_ANNOTATIONS: Final = (Annotations.ENABLE_METRICS, Annotations.DISCOVERY_BACKEND)
"""Graph annotations every generated component carries unless its service sets its own
(upstream's ``dgdPropagatedAnnotationKeys``, those the operator acts on)."""


MODEL_FINALIZER: Final = "nvidia.com/finalizer"
"""Held by a LoRA DynamoModel until its adapter has been unloaded from the workers (the upstream
operator's finalizer name, so models it created are cleaned up the same way)."""


class Ports:
    FRONTEND_HTTP: Final = 8000
    SYSTEM: Final = 9090
    PLANNER_METRICS: Final = 9085
    RAY_HEAD: Final = 6379
    VLLM_DATA_PARALLEL_RPC: Final = 13445
    SGLANG_DIST_INIT: Final = 29500
    MPI_SSH: Final = 2222


class PortNames:
    HTTP: Final = "http"
    SYSTEM: Final = "system"
    METRICS: Final = "metrics"


class Env:
    DYN_NAMESPACE: Final = "DYN_NAMESPACE"
    DYN_COMPONENT: Final = "DYN_COMPONENT"
    PARENT_DGD_NAME: Final = "DYN_PARENT_DGD_K8S_NAME"
    PARENT_DGD_NAMESPACE: Final = "DYN_PARENT_DGD_K8S_NAMESPACE"
    NATS_SERVER: Final = "NATS_SERVER"
    ETCD_ENDPOINTS: Final = "ETCD_ENDPOINTS"
    DYNAMO_PORT: Final = "DYNAMO_PORT"
    DYN_HTTP_PORT: Final = "DYN_HTTP_PORT"
    DYN_SYSTEM_ENABLED: Final = "DYN_SYSTEM_ENABLED"
    DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS: Final = "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS"
    DYN_SYSTEM_PORT: Final = "DYN_SYSTEM_PORT"
    DYN_HEALTH_CHECK_ENABLED: Final = "DYN_HEALTH_CHECK_ENABLED"
    PLANNER_PROMETHEUS_PORT: Final = "PLANNER_PROMETHEUS_PORT"
    VLLM_CACHE_ROOT: Final = "VLLM_CACHE_ROOT"
    OMPI_KEEP_FQDN_HOSTNAMES: Final = "OMPI_MCA_orte_keep_fqdn_hostnames"
    LWS_LEADER_ADDRESS: Final = "LWS_LEADER_ADDRESS"
    LWS_WORKER_INDEX: Final = "LWS_WORKER_INDEX"
    DYN_DISCOVERY_BACKEND: Final = "DYN_DISCOVERY_BACKEND"
    POD_NAME: Final = "POD_NAME"
    POD_NAMESPACE: Final = "POD_NAMESPACE"
    POD_UID: Final = "POD_UID"
    DYN_DEPLOYMENT_CONFIG: Final = "DYN_DEPLOYMENT_CONFIG"
    """The SDK-era per-service configuration (JSON) in a graph's envs (``deployment_config``)."""


MAIN_CONTAINER_NAME: Final = "main"
TERMINATION_GRACE_PERIOD_SECONDS: Final = 60
PLANNER_SERVICE_ACCOUNT_NAME: Final = "planner-serviceaccount"
DISCOVERY_ACCOUNT_NAME: Final = "dynamo-k8s-discovery"
"""With Kubernetes discovery, the components of a namespace run as ``dynamo-k8s-discovery``, with
a RoleBinding (and, without a discovery ClusterRole, a Role) of that name plus ``-binding`` (and
``-role``): Dynamo's processes find each other through the API server. No graph name ends in it
(`DISCOVERY_ACCOUNT_SUFFIX`), so it never collides with an account of one graph."""
DISCOVERY_ACCOUNT_SUFFIX: Final = "-k8s-service-discovery"
"""The account of one graph, ``<graph>-k8s-service-discovery`` (a standalone component's
``<component>-k8s-service-discovery``), as the upstream operator and this operator's earlier
releases made it: components whose pods already run as one keep it (no rollout on upgrade)."""

FRONTEND_DEFAULT_COMMAND: Final = ("python3",)
FRONTEND_DEFAULT_ARGS: Final = ("-m", "dynamo.frontend")
"""What a frontend runs when it gives neither command nor args, in the upstream operator's shape:
``command: [python3]``, ``args: [-m, dynamo.frontend]``."""
DEFAULT_SHELL_COMMAND: Final = ("/bin/sh", "-c")
"""The command of any other component whose args are a shell script (upstream's default)."""

DEFAULT_POD_FS_GROUP: Final = 1000
"""Pod ``securityContext.fsGroup`` unless the component gives a security context of its own:
Dynamo's runtime images run as uid 1000 (upstream PR #3935), so a fresh volume must be writable by
that group."""

SHARED_MEMORY_VOLUME_NAME: Final = "shared-memory"
SHARED_MEMORY_MOUNT_PATH: Final = "/dev/shm"
SHARED_MEMORY_DEFAULT_SIZE: Final = "8Gi"

VLLM_DEFAULT_COMPILATION_CACHE_PATH: Final = "/root/.cache/vllm"

GPU_RESOURCE_NAME: Final = "nvidia.com/gpu"
HPA_DEFAULT_CPU_UTILIZATION: Final = 80

MPI_SSH_SECRET_DEFAULT_NAME: Final = "mpi-run-ssh-secret"
MPI_SSH_MOUNT_PATH: Final = "/ssh-pk"

DOCKER_CONFIG_JSON_SECRET_TYPE: Final = "kubernetes.io/dockerconfigjson"
DOCKER_CONFIG_JSON_KEY: Final = ".dockerconfigjson"
DOCKER_HUB_HOST: Final = "docker.io"

DEFAULT_INGRESS_HOST_SUFFIX: Final = "local"

IMAGE_BUILDER_OWNED_POD_FIELDS: Final = frozenset(
    {"containers", "initContainers", "volumes", "restartPolicy"}
)
"""PodSpec fields of an image builder pod that the operator sets and no extra pod spec may give."""
