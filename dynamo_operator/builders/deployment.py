"""The apps/v1 Deployment of a single-node component."""

from __future__ import annotations

from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.labels import child_metadata, selector_labels
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.builders.pod_template import build_pod_template


def build_deployment(component: Component, context: BuildContext) -> JsonDict:
    """Named after the DCD; selects its pods by ``nvidia.com/selector`` only.

    ``replicas`` is left out when autoscaling is on: the HPA owns it, and applying our value would
    undo every scaling decision.
    """
    spec: JsonDict = {}
    if not component.autoscaling_enabled:
        spec["replicas"] = component.replicas
    spec["selector"] = {"matchLabels": selector_labels(component)}
    spec["template"] = build_pod_template(component, context)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": child_metadata(component),
        "spec": spec,
    }
