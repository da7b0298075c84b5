"""Labels and annotations of a component's children and pods.

``nvidia.com/selector: <dcd name>`` is unique to one component: its Deployment (or LeaderWorkerSet)
and its Service select pods through it alone, never through the component type, so two worker
services of one graph never share a Service. System labels are applied last so a user cannot
break the selector with ``labels`` or ``extraPodMetadata``.
"""

from __future__ import annotations

from collections.abc import Mapping

from dynamo_operator.builders.component import Component
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.builders.metadata import object_metadata
from dynamo_operator.constants import Annotations, Labels
from dynamo_operator.naming import component_pod_selector


def selector_labels(component: Component) -> dict[str, str]:
    return component_pod_selector(component.name)


def metrics_enabled(component: Component) -> bool:
    """On unless the DCD (or its graph, propagated into spec.annotations) says ``false``."""
    for source in (component.annotations, component.metadata_annotations):
        if source.get(Annotations.ENABLE_METRICS) == "false":
            return False
    return True


def system_labels(component: Component) -> dict[str, str]:
    labels = {
        **selector_labels(component),
        Labels.COMPONENT: component.service_name,
        Labels.DYNAMO_NAMESPACE: component.dynamo_namespace,
        Labels.METRICS_ENABLED: "true" if metrics_enabled(component) else "false",
    }
    if component.component_type:
        labels[Labels.COMPONENT_TYPE] = component.component_type
    if component.sub_component_type:
        labels[Labels.SUB_COMPONENT_TYPE] = component.sub_component_type
    graph_name = component.graph_name
    if graph_name:
        labels[Labels.GRAPH_DEPLOYMENT_NAME] = graph_name
    return labels


def child_metadata(
    component: Component,
    *,
    name: str | None = None,
    extra_labels: Mapping[str, str] | None = None,
    extra_annotations: Mapping[str, str] | None = None,
) -> JsonDict:
    """Metadata of any object built for a component (workload, Service, Ingress, HPA...).

    Named after the component unless ``name`` says otherwise. Labels: the DCD's, then what this
    child adds (``extra_labels``: the ingress spec's labels, a LeaderWorkerSet's instance id), then
    the system labels, so the more specific wins and nothing overrides the selector. Annotations:
    the DCD's ``spec.annotations``, then ``extra_annotations``.
    """
    labels = {
        **component.metadata_labels,
        **component.labels,
        **(extra_labels or {}),
        **system_labels(component),
    }
    annotations = {**component.annotations, **(extra_annotations or {})}
    return object_metadata(component, name or component.name, labels, annotations)


def pod_labels(component: Component, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    pod_metadata = component.spec.get("extraPodMetadata") or {}
    return {
        **component.metadata_labels,
        **component.labels,
        **(pod_metadata.get("labels") or {}),
        **(extra or {}),
        **system_labels(component),
    }


def pod_annotations(component: Component, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    pod_metadata = component.spec.get("extraPodMetadata") or {}
    return {**component.annotations, **(pod_metadata.get("annotations") or {}), **(extra or {})}
