"""Pure builders: DGD -> DCDs and PVCs, DCD -> Deployment or LeaderWorkerSets, Service, Ingress,
VirtualService and HorizontalPodAutoscaler. Each returns new plain dicts (Kubernetes JSON) and
never mutates its input, reads the clock, the environment or the network.

One entry per build, each taking a validated model and a ``BuildContext``:
``build_component_deployments(dgd, context)``, ``build_persistent_volume_claims(dgd, context)`` and
``build_component_children(dcd, context)``; the planner's ServiceAccount and RoleBinding, shared
by the graphs of a namespace, come from ``build_planner_access(dgd, namespace, role_name)``, and
the Kubernetes-discovery account a namespace's components run as from
``build_discovery_service_account`` (one per namespace, owned by no graph; an earlier release's
account of one graph that live pods run as is kept: ``kept_discovery_account``,
``build_kept_discovery_account``) and ``build_discovery_access`` (its RoleBinding to the chart's
ClusterRole, or its own Role and RoleBinding; owned by the account). A base model's headless
Service is shared by the components serving it: its owners come from
``build_model_service_owners(dcds)`` (handed to the builders in the context; the operator hands
it only the co-owners, found by ``model_service_key``), and ``build_shared_model_service``
rebuilds it for the owners left when one stops serving the model.
Internally the builders read a wire-form view of the object (``component.py``, ``graph.py``).
"""

from dynamo_operator.builders.children import (
    ComponentChildren,
    MultinodeUnsupported,
    build_component_children,
)
from dynamo_operator.builders.component_deployments import build_component_deployments
from dynamo_operator.builders.container import default_launch
from dynamo_operator.builders.context import BuildContext, ModelServiceOwners
from dynamo_operator.builders.discovery import (
    DISCOVERY_BACKENDS,
    component_discovery_backend,
    uses_kubernetes_discovery,
)
from dynamo_operator.builders.errors import BuildError, InvalidComponentError
from dynamo_operator.builders.launch_commands import Launch, find_launch, vllm_multinode_mode
from dynamo_operator.builders.merge import deep_merge, merge_env
from dynamo_operator.builders.metadata import controller_reference
from dynamo_operator.builders.model_service import (
    build_model_service_owners,
    build_shared_model_service,
    model_service_key,
    served_base_model,
)
from dynamo_operator.builders.persistent_volume_claims import build_persistent_volume_claims
from dynamo_operator.builders.probes import FRONTEND_READINESS_COMMAND
from dynamo_operator.builders.resources import gpus_per_node
from dynamo_operator.builders.scaling_adapter import (
    build_scaling_adapters,
    derive_scaling_adapter_status,
    scaled_service,
    scales_through_adapter,
    scaling_adapter_labels,
    scaling_adapter_name,
    scaling_adapter_selector,
    service_replicas,
    service_replicas_patch,
)
from dynamo_operator.builders.service_account import (
    DISCOVERY_RULES,
    build_discovery_access,
    build_discovery_service_account,
    build_kept_discovery_account,
    build_planner_access,
    discovery_account_name,
    discovery_owner,
    discovery_role_name,
    kept_discovery_account,
    pod_service_accounts,
)

__all__ = [
    "DISCOVERY_BACKENDS",
    "DISCOVERY_RULES",
    "FRONTEND_READINESS_COMMAND",
    "BuildContext",
    "BuildError",
    "ComponentChildren",
    "InvalidComponentError",
    "Launch",
    "ModelServiceOwners",
    "MultinodeUnsupported",
    "build_component_children",
    "build_component_deployments",
    "build_discovery_access",
    "build_discovery_service_account",
    "build_kept_discovery_account",
    "build_model_service_owners",
    "build_persistent_volume_claims",
    "build_planner_access",
    "build_scaling_adapters",
    "build_shared_model_service",
    "component_discovery_backend",
    "controller_reference",
    "deep_merge",
    "default_launch",
    "derive_scaling_adapter_status",
    "discovery_account_name",
    "discovery_owner",
    "discovery_role_name",
    "find_launch",
    "gpus_per_node",
    "kept_discovery_account",
    "merge_env",
    "model_service_key",
    "pod_service_accounts",
    "scaled_service",
    "scales_through_adapter",
    "scaling_adapter_labels",
    "scaling_adapter_name",
    "scaling_adapter_selector",
    "served_base_model",
    "service_replicas",
    "service_replicas_patch",
    "uses_kubernetes_discovery",
    "vllm_multinode_mode",
]
