"""Every kind the end-to-end tests and benchmarks address, defined once: the Dynamo kinds and the
optional APIs from the operator's own table (``manager.app.kinds``), the built-in kinds it uses
from the runtime's (``manager.runtime.kinds``), and here only those the operator never touches."""

from __future__ import annotations

from dynamo_operator.crd import RUNTIME_RESOURCES
from manager.app.kinds import COMPONENT, DYNAMO_COMPONENT, GRAPH, MODEL, OPTIONAL_KINDS
from manager.runtime.kinds import ROLE, ROLE_BINDING, ResourceKind

__all__ = [
    "CLUSTER_ROLE",
    "CLUSTER_ROLE_BINDING",
    "COMPONENT",
    "COMPONENT_BETA",
    "DYNAMO_COMPONENT",
    "GRAPH",
    "GRAPH_BETA",
    "LEADER_WORKER_SET",
    "MODEL",
    "PERSISTENT_VOLUME",
    "POD_GROUP",
    "RBAC_KINDS",
    "RESOURCE_QUOTA",
    "ROLE",
    "ROLE_BINDING",
    "VIRTUAL_SERVICE",
    "WORKER_METADATA",
]

GRAPH_BETA = ResourceKind("nvidia.com/v1beta1", GRAPH.kind, GRAPH.plural, namespaced=True)
COMPONENT_BETA = ResourceKind(
    "nvidia.com/v1beta1", COMPONENT.kind, COMPONENT.plural, namespaced=True
)
"""The two kinds users also write at v1beta1 (the API server converts; the operator reads
v1alpha1)."""
LEADER_WORKER_SET = OPTIONAL_KINDS["lws"]
POD_GROUP = OPTIONAL_KINDS["volcano"]
VIRTUAL_SERVICE = OPTIONAL_KINDS["istio"]
(_WORKER_METADATA_CRD,) = RUNTIME_RESOURCES
WORKER_METADATA = ResourceKind(
    GRAPH.api_version, _WORKER_METADATA_CRD.kind, _WORKER_METADATA_CRD.plural, namespaced=True
)
"""What each Dynamo worker publishes of itself for Kubernetes discovery (the operator only
installs its CRD and grants access to it)."""

CLUSTER_ROLE = ResourceKind("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", False)
CLUSTER_ROLE_BINDING = ResourceKind(
    "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "clusterrolebindings", False
)
RBAC_KINDS = {kind.kind: kind for kind in (ROLE, ROLE_BINDING, CLUSTER_ROLE, CLUSTER_ROLE_BINDING)}
PERSISTENT_VOLUME = ResourceKind("v1", "PersistentVolume", "persistentvolumes", False)
RESOURCE_QUOTA = ResourceKind("v1", "ResourceQuota", "resourcequotas", True)
