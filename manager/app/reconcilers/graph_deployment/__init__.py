"""The DynamoGraphDeployment controller: one DCD per service, the graph's PVCs, planner access."""

from manager.app.reconcilers.graph_deployment.reconciler import (
    GraphDeploymentReconciler,
    GraphKinds,
)
from manager.app.reconcilers.graph_deployment.setup import graphs_naming_claim, setup

__all__ = ["GraphDeploymentReconciler", "GraphKinds", "graphs_naming_claim", "setup"]
