"""The pure library shared by the reconcilers, the webhooks and the CLI.

Pydantic models of the Dynamo CRDs, defaults, validation, status derivation and the resource
builders. Nothing here performs I/O, reads the clock or the environment, or imports asyncio.

The subpackages (``api``, ``builders``, ``crd``, ``status``, ``validation``) each list their own
public names. This package lists what its top-level modules offer to the rest of the code: the
constants that form the contract with users and images (``constants``), object names and
artifact references (``naming``), Go durations (``durations``), image pull secret discovery
(``pull_secrets``), field paths and values as messages show them (``field_paths``, shared by
validation and conversion), the workers of a base model read from EndpointSlices
(``model_endpoints``), which LoRA adapter to load where (``lora_plan``), the Deployment rollout
strategy its annotations ask for (``rollout_strategy``), the backend a component runs
(``backend_inference``), the SDK-era ``DYN_DEPLOYMENT_CONFIG`` (``deployment_config``), offline
rendering (``render``), the operator's settings (``settings``) and the errors of these modules
(``errors``).

``render`` pulls in every builder, which ``validate`` and the webhooks never need, so its names
are imported on first use (PEP 562 ``__getattr__``); the rest is cheap and imported here.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from dynamo_operator.backend_inference import effective_backend, launched_backends, worker_backends
from dynamo_operator.constants import (
    DEFAULT_INGRESS_HOST_SUFFIX,
    DEFAULT_POD_FS_GROUP,
    DEFAULT_SHELL_COMMAND,
    DISCOVERY_ACCOUNT_NAME,
    DISCOVERY_ACCOUNT_SUFFIX,
    FRONTEND_DEFAULT_ARGS,
    FRONTEND_DEFAULT_COMMAND,
    GPU_RESOURCE_NAME,
    GRAPH_PROPAGATED_ANNOTATIONS,
    HPA_DEFAULT_CPU_UTILIZATION,
    IMAGE_BUILDER_OWNED_POD_FIELDS,
    MAIN_CONTAINER_NAME,
    MANAGED_BY_OPERATOR,
    MODEL_FINALIZER,
    MPI_SSH_MOUNT_PATH,
    MPI_SSH_SECRET_DEFAULT_NAME,
    PLANNER_SERVICE_ACCOUNT_NAME,
    SHARED_MEMORY_DEFAULT_SIZE,
    SHARED_MEMORY_MOUNT_PATH,
    SHARED_MEMORY_VOLUME_NAME,
    TERMINATION_GRACE_PERIOD_SECONDS,
    VLLM_DEFAULT_COMPILATION_CACHE_PATH,
    Annotations,
    Env,
    Labels,
    PortNames,
    Ports,
)
from dynamo_operator.deployment_config import (
    DeploymentConfig,
    DeploymentConfigError,
    ServiceOverrides,
    deployment_config_text,
    parse_deployment_config,
)
from dynamo_operator.durations import (
    InvalidDurationError,
    format_duration,
    parse_duration,
    positive_duration,
)
from dynamo_operator.errors import (
    InvalidComponentReferenceError,
    MalformedDockerConfigError,
    RenderError,
)
from dynamo_operator.field_paths import (
    MAX_NESTING_DEPTH,
    MAX_SHOWN_TEXT,
    PathPart,
    describe,
    join_path,
)
from dynamo_operator.lora_plan import (
    Adapter,
    AdapterLoad,
    LoadPlan,
    adapter_of,
    endpoint_states,
    is_lora,
    load_events,
    plan_adapter_loads,
    unload_event,
)
from dynamo_operator.model_endpoints import (
    WorkerEndpoint,
    endpoint_service_names,
    find_worker_endpoints,
)
from dynamo_operator.naming import (
    COMPONENT_REFERENCE_RULE,
    DNS1123_LABEL_MAX_LENGTH,
    ComponentReference,
    base_model_hash,
    component_deployment_name,
    component_pod_selector,
    component_resource_name,
    default_dynamo_namespace,
    dynamo_namespace,
    is_dns1123_label,
    is_dns1123_subdomain,
    leader_worker_set_name,
    model_service_name,
    parse_component_reference,
)
from dynamo_operator.pull_secrets import (
    PullSecretIndex,
    build_pull_secret_index,
    discover_image_pull_secrets,
    is_docker_config_secret,
)
from dynamo_operator.rollout_strategy import (
    ROLLOUT_ANNOTATIONS,
    RolloutProblem,
    build_deployment_strategy,
    rollout_annotations,
    rollout_problems,
)
from dynamo_operator.settings import (
    ALL_OPTIONAL_APIS,
    LEADER_WORKER_SET_API_VERSION,
    OPTIONAL_API_GROUP_VERSIONS,
    POD_GROUP_API_VERSION,
    VIRTUAL_SERVICE_API_VERSION,
    DiscoveryBackend,
    OperatorSettings,
    OptionalApi,
)

if _TYPE_CHECKING:
    from dynamo_operator.render import (
        RenderResult,
        render_objects,
    )

__all__ = [
    "ALL_OPTIONAL_APIS",
    "COMPONENT_REFERENCE_RULE",
    "DEFAULT_INGRESS_HOST_SUFFIX",
    "DEFAULT_POD_FS_GROUP",
    "DEFAULT_SHELL_COMMAND",
    "DISCOVERY_ACCOUNT_NAME",
    "DISCOVERY_ACCOUNT_SUFFIX",
    "DNS1123_LABEL_MAX_LENGTH",
    "FRONTEND_DEFAULT_ARGS",
    "FRONTEND_DEFAULT_COMMAND",
    "GPU_RESOURCE_NAME",
    "GRAPH_PROPAGATED_ANNOTATIONS",
    "HPA_DEFAULT_CPU_UTILIZATION",
    "IMAGE_BUILDER_OWNED_POD_FIELDS",
    "LEADER_WORKER_SET_API_VERSION",
    "MAIN_CONTAINER_NAME",
    "MANAGED_BY_OPERATOR",
    "MAX_NESTING_DEPTH",
    "MAX_SHOWN_TEXT",
    "MODEL_FINALIZER",
    "MPI_SSH_MOUNT_PATH",
    "MPI_SSH_SECRET_DEFAULT_NAME",
    "OPTIONAL_API_GROUP_VERSIONS",
    "PLANNER_SERVICE_ACCOUNT_NAME",
    "POD_GROUP_API_VERSION",
    "ROLLOUT_ANNOTATIONS",
    "SHARED_MEMORY_DEFAULT_SIZE",
    "SHARED_MEMORY_MOUNT_PATH",
    "SHARED_MEMORY_VOLUME_NAME",
    "TERMINATION_GRACE_PERIOD_SECONDS",
    "VIRTUAL_SERVICE_API_VERSION",
    "VLLM_DEFAULT_COMPILATION_CACHE_PATH",
    "Adapter",
    "AdapterLoad",
    "Annotations",
    "ComponentReference",
    "DeploymentConfig",
    "DeploymentConfigError",
    "DiscoveryBackend",
    "Env",
    "InvalidComponentReferenceError",
    "InvalidDurationError",
    "Labels",
    "LoadPlan",
    "MalformedDockerConfigError",
    "OperatorSettings",
    "OptionalApi",
    "PathPart",
    "PortNames",
    "Ports",
    "PullSecretIndex",
    "RenderError",
    "RenderResult",
    "RolloutProblem",
    "ServiceOverrides",
    "WorkerEndpoint",
    "adapter_of",
    "base_model_hash",
    "build_deployment_strategy",
    "build_pull_secret_index",
    "component_deployment_name",
    "component_pod_selector",
    "component_resource_name",
    "default_dynamo_namespace",
    "deployment_config_text",
    "describe",
    "discover_image_pull_secrets",
    "dynamo_namespace",
    "effective_backend",
    "endpoint_service_names",
    "endpoint_states",
    "find_worker_endpoints",
    "format_duration",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_docker_config_secret",
    "is_lora",
    "join_path",
    "launched_backends",
    "leader_worker_set_name",
    "load_events",
    "model_service_name",
    "parse_component_reference",
    "parse_deployment_config",
    "parse_duration",
    "plan_adapter_loads",
    "positive_duration",
    "render_objects",
    "rollout_annotations",
    "rollout_problems",
    "unload_event",
    "worker_backends",
]


_RENDER_NAMES = frozenset({"RenderResult", "render_objects"})


def __getattr__(name: str) -> object:
    if name not in _RENDER_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import dynamo_operator.render

    value = getattr(dynamo_operator.render, name)
    globals()[name] = value
    return value
