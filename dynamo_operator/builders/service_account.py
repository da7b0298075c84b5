"""Which service account a component's pods run as.

Planners scale the graph through the Kubernetes API, so their pods run as
``planner-serviceaccount``, which the cluster binds to the planner's role; every other component
runs as whatever its namespace and ``extraPodSpec`` say. The rule is asked in two places: a graph
forces it into its planner DCDs (``extraPodSpec.serviceAccountName``, as the upstream operator
does), and the pod template defaults it for a planner DCD written directly, where the user's
``extraPodSpec`` may still override it.
"""

from __future__ import annotations

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.api.constants import ComponentType
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.constants import MANAGED_BY_OPERATOR, PLANNER_SERVICE_ACCOUNT_NAME, Labels


def component_service_account(component_type: str | None) -> str | None:
    """The service account a component of this type must run as, or None for no requirement."""
    return PLANNER_SERVICE_ACCOUNT_NAME if component_type == ComponentType.PLANNER else None


def build_planner_access(
    dgd: DynamoGraphDeployment, namespace: str, planner_cluster_role_name: str | None
) -> list[JsonDict]:
    """The ServiceAccount planners run as, and its RoleBinding to ``planner_cluster_role_name``
    when the operator was given one; nothing when the graph has no planner.

    Both are shared by every graph of the namespace, so no graph owns them: they carry the
    managed-by label instead and outlive any one graph.
    """
    if not any(
        service.component_type == ComponentType.PLANNER for service in dgd.spec.services.values()
    ):
        return []
    metadata: JsonDict = {
        "name": PLANNER_SERVICE_ACCOUNT_NAME,
        "namespace": namespace,
        "labels": {Labels.MANAGED_BY: MANAGED_BY_OPERATOR},
    }
    objects: list[JsonDict] = [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}]
    if planner_cluster_role_name:
        objects.append(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": dict(metadata),
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": planner_cluster_role_name,
                },
                "subjects": [
                    {
                        "kind": "ServiceAccount",
                        "name": PLANNER_SERVICE_ACCOUNT_NAME,
                        "namespace": namespace,
                    }
                ],
            }
        )
    return objects
