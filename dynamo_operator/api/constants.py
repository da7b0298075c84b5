"""Identity of the Dynamo API group and the closed sets of values its objects use."""

from __future__ import annotations

from enum import StrEnum
from typing import Final

GROUP: Final = "nvidia.com"
VERSION: Final = "v1alpha1"
API_VERSION: Final = f"{GROUP}/{VERSION}"
#: The served version converted by the webhook; v1alpha1 stays the storage version.
BETA_VERSION: Final = "v1beta1"
BETA_API_VERSION: Final = f"{GROUP}/{BETA_VERSION}"

KIND_GRAPH_DEPLOYMENT: Final = "DynamoGraphDeployment"
KIND_COMPONENT_DEPLOYMENT: Final = "DynamoComponentDeployment"
KIND_MODEL: Final = "DynamoModel"
KIND_WORKER_METADATA: Final = "DynamoWorkerMetadata"
KIND_COMPONENT: Final = "DynamoComponent"
KIND_SCALING_ADAPTER: Final = "DynamoGraphDeploymentScalingAdapter"

MAX_SERVICES: Final = 25
MAX_COMPONENTS: Final = MAX_SERVICES
MAX_PVCS: Final = 100
MIN_MULTINODE_NODE_COUNT: Final = 2
DEFAULT_MULTINODE_NODE_COUNT: Final = 2


class BackendFramework(StrEnum):
    SGLANG = "sglang"
    VLLM = "vllm"
    TRTLLM = "trtllm"


class ComponentType(StrEnum):
    """Component types with special defaults; the field itself stays free-form on the wire."""

    FRONTEND = "frontend"
    WORKER = "worker"
    PREFILL = "prefill"
    DECODE = "decode"
    PLANNER = "planner"
    DEFAULT = "default"
    MAIN = "main"


class BetaComponentType(StrEnum):
    """The closed set of a v1beta1 component's ``type`` (v1alpha1's componentType is free-form)."""

    FRONTEND = "frontend"
    WORKER = "worker"
    PREFILL = "prefill"
    DECODE = "decode"
    PLANNER = "planner"
    EPP = "epp"


WORKER_LIKE_COMPONENT_TYPES: Final = frozenset(
    {ComponentType.WORKER, ComponentType.PREFILL, ComponentType.DECODE}
)


class ModelType(StrEnum):
    BASE = "base"
    LORA = "lora"
    ADAPTER = "adapter"


class GraphDeploymentState(StrEnum):
    INITIALIZING = "initializing"
    PENDING = "pending"
    SUCCESSFUL = "successful"
    FAILED = "failed"


class ConditionStatus(StrEnum):
    TRUE = "True"
    FALSE = "False"
    UNKNOWN = "Unknown"


class ServiceComponentKind(StrEnum):
    """What kind of workload backs one service of a graph (reported in the graph's status)."""

    POD_CLIQUE = "PodClique"
    POD_CLIQUE_SCALING_GROUP = "PodCliqueScalingGroup"
    DEPLOYMENT = "Deployment"
    LEADER_WORKER_SET = "LeaderWorkerSet"
