"""The apps/v1 Deployment of a single-node component."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from dynamo_operator.api.constants import WORKER_LIKE_COMPONENT_TYPES
from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.labels import child_metadata, selector_labels
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.builders.pod_template import build_pod_template
from dynamo_operator.rollout_strategy import build_deployment_strategy, rollout_annotations

WORKER_MIN_READY_SECONDS: Final = 10
"""How long a new worker pod serves Ready before its Deployment counts it available and takes an
old one down. Its readiness is its own health; the frontends route to it only once its
EndpointSlice and DynamoWorkerMetadata reach them and they have read its model card. Until then
the old worker must keep serving, or requests find no worker (ai-dynamo/dynamo#13622; measured
here without it: 1 of 270 requests answered 503 during a one-replica rollout under load)."""


def build_deployment(component: Component, context: BuildContext) -> JsonDict:
    """Named after the DCD; selects its pods by ``nvidia.com/selector`` only.

    ``replicas`` is left out when autoscaling is on: the HPA owns it, and applying our value would
    undo every scaling decision. Worker-like components roll out with ``minReadySeconds``
    (``WORKER_MIN_READY_SECONDS``). The strategy is the one the rollout annotations ask for
    (``rollout_strategy``), written out even when it is Kubernetes' default, as upstream does.
    """
    spec: JsonDict = {}
    if not component.autoscaling_enabled:
        spec["replicas"] = component.replicas
    if component.component_type in WORKER_LIKE_COMPONENT_TYPES:
        spec["minReadySeconds"] = WORKER_MIN_READY_SECONDS
    spec["selector"] = {"matchLabels": selector_labels(component)}
    spec["strategy"] = build_deployment_strategy(
        rollout_annotations(component.annotations, _pod_annotations(component))
    )
    spec["template"] = build_pod_template(component, context)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": child_metadata(component),
        "spec": spec,
    }


def _pod_annotations(component: Component) -> Mapping[str, str]:
    metadata = component.spec.get("extraPodMetadata")
    annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
    return annotations if isinstance(annotations, Mapping) else {}
