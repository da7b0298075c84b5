"""HorizontalPodAutoscaler (autoscaling/v2) of a component with ``autoscaling.enabled``.

Without metrics the autoscaler targets 80% average CPU utilisation, the upstream operator's default.
"""

from __future__ import annotations

from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.labels import child_metadata
from dynamo_operator.builders.merge import JsonDict, copy_json
from dynamo_operator.constants import HPA_DEFAULT_CPU_UTILIZATION


def default_metrics() -> list[JsonDict]:
    return [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {
                    "type": "Utilization",
                    "averageUtilization": HPA_DEFAULT_CPU_UTILIZATION,
                },
            },
        }
    ]


def build_horizontal_pod_autoscaler(component: Component, context: BuildContext) -> JsonDict | None:
    """Scales the component's Deployment; multinode components are not autoscaled."""
    if not component.autoscaling_enabled or component.is_multinode:
        return None
    autoscaling = component.spec["autoscaling"]
    spec: JsonDict = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": component.name}
    }
    if autoscaling.get("minReplicas") is not None:
        spec["minReplicas"] = autoscaling["minReplicas"]
    spec["maxReplicas"] = autoscaling.get("maxReplicas") or max(
        component.replicas, autoscaling.get("minReplicas") or 1
    )
    spec["metrics"] = copy_json(autoscaling.get("metrics")) or default_metrics()
    if autoscaling.get("behavior"):
        spec["behavior"] = copy_json(autoscaling["behavior"])
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": child_metadata(component),
        "spec": spec,
    }
