"""The DynamoGraphDeploymentScalingAdapter controller: an adapter's replicas written into its
graph's service, and the adapter's status (``reconciler``); ``watches`` maps a graph to its
adapters; ``setup`` adds the controller to the manager. The graph's own reconciler creates and
deletes the adapters."""

from manager.app.reconcilers.scaling_adapter.reconciler import (
    AdapterKinds,
    ScalingAdapterReconciler,
)
from manager.app.reconcilers.scaling_adapter.setup import setup
from manager.app.reconcilers.scaling_adapter.watches import adapters_of_graph

__all__ = ["AdapterKinds", "ScalingAdapterReconciler", "adapters_of_graph", "setup"]
