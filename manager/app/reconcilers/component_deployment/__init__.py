"""The DynamoComponentDeployment controller: one component's workload, Service, routing,
scaling."""

from manager.app.reconcilers.component_deployment.reconciler import (
    ComponentDeploymentReconciler,
    ComponentKinds,
)
from manager.app.reconcilers.component_deployment.setup import (
    components_awaiting,
    pod_for_cache,
    setup,
)
from manager.app.reconcilers.component_deployment.watches import (
    discovery_access_requests,
    pod_requests,
    secret_requests,
)

__all__ = [
    "ComponentDeploymentReconciler",
    "ComponentKinds",
    "components_awaiting",
    "discovery_access_requests",
    "pod_for_cache",
    "pod_requests",
    "secret_requests",
    "setup",
]
