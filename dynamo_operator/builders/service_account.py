"""Which service account a component's pods run as.

Planners scale the graph through the Kubernetes API, so their pods run as
``planner-serviceaccount``, which the cluster binds to the planner's role; every other component
runs as whatever its namespace and ``extraPodSpec`` say. The rule is asked in two places: a graph
forces it into its planner DCDs (``extraPodSpec.serviceAccountName``, as the upstream operator
does), and the pod template defaults it for a planner DCD written directly, where the user's
``extraPodSpec`` may still override it.
"""

from __future__ import annotations

from dynamo_operator.api.constants import ComponentType
from dynamo_operator.constants import PLANNER_SERVICE_ACCOUNT_NAME


def component_service_account(component_type: str | None) -> str | None:
    """The service account a component of this type must run as, or None for no requirement."""
    return PLANNER_SERVICE_ACCOUNT_NAME if component_type == ComponentType.PLANNER else None
