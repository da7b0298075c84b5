"""A DynamoComponentDeployment naming a built artifact (``spec.dynamoComponent``) and giving no
image of its own runs the image its DynamoComponent built: the component waits for it, then
deploys on it. (A graph's components already carry the image: the graph put it there.)"""

from __future__ import annotations

from dynamo_operator.api import DynamoComponentDeployment
from dynamo_operator.naming import parse_component_reference

__all__ = ["awaited_dynamo_component", "on_built_image"]


def awaited_dynamo_component(dcd: DynamoComponentDeployment) -> str | None:
    """The DynamoComponent (``name--version``) whose image ``dcd`` waits for, or None when it
    names no artifact or gives its own image."""
    if not dcd.spec.dynamo_component:
        return None
    main = dcd.spec.extra_pod_spec.main_container if dcd.spec.extra_pod_spec else None
    if (main or {}).get("image"):
        return None
    return parse_component_reference(dcd.spec.dynamo_component).resource_name


def on_built_image(dcd: DynamoComponentDeployment, image: str) -> DynamoComponentDeployment:
    """``dcd`` with its main container on ``image`` (a copy; ``dcd`` is not changed)."""
    wire = dcd.to_wire()
    extra = wire["spec"].setdefault("extraPodSpec", {})
    extra.setdefault("mainContainer", {})["image"] = image
    return DynamoComponentDeployment.model_validate(wire)
