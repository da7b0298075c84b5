"""The DynamoGraphDeployment controller: one DCD per service, the graph's PVCs, planner access."""

from manager.app.reconcilers.graph_deployment.reconciler import (
    GraphDeploymentReconciler,
    GraphKinds,
)

__all__ = ["GraphDeploymentReconciler", "GraphKinds"]
