"""Pydantic models of the Dynamo custom resources at version nvidia.com/v1beta1.

v1beta1 is served and converted by the conversion webhook (``dynamo_operator.conversion``);
v1alpha1 stays the storage version and the only one the operator reconciles. The field-by-field
contract between the two is in the conversion package's docstring.
"""

from dynamo_operator.api.scaling_adapter import (
    BetaDgdRef as DgdRef,
)
from dynamo_operator.api.scaling_adapter import (
    BetaDynamoGraphDeploymentScalingAdapter as DynamoGraphDeploymentScalingAdapter,
)
from dynamo_operator.api.scaling_adapter import (
    BetaScalingAdapterSpec as ScalingAdapterSpec,
)
from dynamo_operator.api.scaling_adapter import ScalingAdapterStatus
from dynamo_operator.api.v1beta1.component import (
    COMPONENT_NAME_MAX_LENGTH,
    COMPONENT_NAME_PATTERN,
    CompilationCache,
    Component,
    ScalingAdapter,
)
from dynamo_operator.api.v1beta1.component_deployment import (
    DynamoComponentDeployment,
    DynamoComponentDeploymentSpec,
    DynamoComponentDeploymentStatus,
)
from dynamo_operator.api.v1beta1.graph_deployment import (
    COMPONENTS_RULES,
    ComponentReplicaStatus,
    DynamoGraphDeployment,
    DynamoGraphDeploymentSpec,
    DynamoGraphDeploymentStatus,
    RollingUpdateStatus,
)

__all__ = [
    "COMPONENTS_RULES",
    "COMPONENT_NAME_MAX_LENGTH",
    "COMPONENT_NAME_PATTERN",
    "CompilationCache",
    "Component",
    "ComponentReplicaStatus",
    "DgdRef",
    "DynamoComponentDeployment",
    "DynamoComponentDeploymentSpec",
    "DynamoComponentDeploymentStatus",
    "DynamoGraphDeployment",
    "DynamoGraphDeploymentScalingAdapter",
    "DynamoGraphDeploymentSpec",
    "DynamoGraphDeploymentStatus",
    "RollingUpdateStatus",
    "ScalingAdapter",
    "ScalingAdapterSpec",
    "ScalingAdapterStatus",
]
