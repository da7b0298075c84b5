"""Per-kind Dynamo reconcilers: thin adapters from the manager to the pure library."""

from manager.reconcilers.component_deployment import (
    ComponentDeploymentReconciler,
    ComponentKinds,
    discovery_access_requests,
    pod_requests,
    secret_requests,
)
from manager.reconcilers.graph_deployment import GraphDeploymentReconciler, GraphKinds

__all__ = [
    "ComponentDeploymentReconciler",
    "ComponentKinds",
    "GraphDeploymentReconciler",
    "GraphKinds",
    "discovery_access_requests",
    "pod_requests",
    "secret_requests",
]
