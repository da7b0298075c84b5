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
#: The kinds served at v1beta1 as well (the CRD table's `definitions.py` says so too).
BETA_SERVED_KINDS: Final = frozenset(
    {KIND_GRAPH_DEPLOYMENT, KIND_COMPONENT_DEPLOYMENT, KIND_SCALING_ADAPTER}
)


def reference_api_version(kind: str) -> str:
    """The version an ownerReference to our ``kind`` names: the newest it is served at, the one
    the garbage collector watches it at (discovery's preferred). A reference naming another
    version does not match the identity the collector observed, so it reads every such child
    and its owner again from the API server when it sees the child (a read of an owner at
    v1beta1 is a call to the conversion webhook): two reads a child as it is created, and again
    for every child each time the controller manager starts."""
    return BETA_API_VERSION if kind in BETA_SERVED_KINDS else API_VERSION


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
