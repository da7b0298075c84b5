"""Pure builders: DGD -> DCDs and PVCs, DCD -> Deployment or LeaderWorkerSets, Service, Ingress,
VirtualService and HorizontalPodAutoscaler. Each returns new plain dicts (Kubernetes JSON) and
never mutates its input, reads the clock, the environment or the network.
"""

from dynamo_operator.builders.children import (
    ComponentChildren,
    MultinodeUnsupported,
    build_component_children,
    build_component_children_of,
    build_workload,
)
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.component_deployments import (
    build_component_deployments,
    build_component_deployments_from_graph,
)
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.errors import BuildError, InvalidComponentError
from dynamo_operator.builders.graph import Graph
from dynamo_operator.builders.persistent_volume_claims import (
    build_persistent_volume_claims,
    build_persistent_volume_claims_from_graph,
)

__all__ = [
    "BuildContext",
    "BuildError",
    "Component",
    "ComponentChildren",
    "Graph",
    "InvalidComponentError",
    "MultinodeUnsupported",
    "build_component_children",
    "build_component_children_of",
    "build_component_deployments",
    "build_component_deployments_from_graph",
    "build_persistent_volume_claims",
    "build_persistent_volume_claims_from_graph",
    "build_workload",
]
