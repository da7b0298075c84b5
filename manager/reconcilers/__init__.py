"""Per-kind Dynamo reconcilers: thin adapters from the manager to the pure library."""

from manager.reconcilers.component_deployment import (
    ComponentDeploymentReconciler,
    ComponentKinds,
    pod_requests,
    secret_requests,
)
from manager.reconcilers.graph_deployment import GraphDeploymentReconciler, GraphKinds

__all__ = [
    "ComponentDeploymentReconciler",
    "ComponentKinds",
    "GraphDeploymentReconciler",
    "GraphKinds",
    "pod_requests",
    "secret_requests",
]
