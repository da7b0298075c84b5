"""DynamoGraphDeploymentScalingAdapters: the adapters a graph wants, and what each one does.

An adapter gives one service of a graph a scale subresource, so HPA, KEDA, ``kubectl scale`` and
Dynamo's planner can scale that service alone. A graph wants one adapter per service with
``scalingAdapter.enabled: true``, named ``<graph>-<lowercase service>`` (the name of the service's
DCD, so validation's check of the generated names, a DNS-1123 label unique within the graph,
covers it), labelled with the graph and the service as the service's pods are, and controlled by
the graph (garbage-collected with it).

The adapter's ``spec.replicas`` is seeded from the service's replicas (1 when unset) when it is
created, never afterwards: from then on the adapter is the source of truth, and its reconciler
writes its value into the graph (``service_replicas_patch``) as a JSON merge patch of that one
field. Its status says what it scaled: ``replicas`` (the adapter's), ``selector`` (the label
selector of the service's pods, which an HPA reads to find their metrics) and ``lastScaleTime``
(when a new value was last written into the graph).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from dynamo_operator.api import API_VERSION, KIND_GRAPH_DEPLOYMENT, DynamoGraphDeployment
from dynamo_operator.api.constants import KIND_SCALING_ADAPTER
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.graph import Graph
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.builders.metadata import object_metadata
from dynamo_operator.constants import Labels
from dynamo_operator.naming import component_deployment_name
from dynamo_operator.status.conditions import format_time

DEFAULT_REPLICAS = 1


def scaling_adapter_name(graph_name: str, service_name: str) -> str:
    """``<graph>-<lowercase service>``, as the service's DCD (and upstream's adapters)."""
    return component_deployment_name(graph_name, service_name)


def scaling_adapter_labels(graph_name: str, service_name: str) -> dict[str, str]:
    """The two labels every pod of the service carries (system labels, which no user label
    overrides); the adapter carries them too, so a graph's adapters are found by label."""
    return {Labels.COMPONENT: service_name, Labels.GRAPH_DEPLOYMENT_NAME: graph_name}


def scaling_adapter_selector(graph_name: str, service_name: str) -> str:
    """The label selector of the service's pods as a string (``labels.SelectorFromSet``'s form:
    ``key=value`` pairs sorted by key, comma-separated). The graph and service labels, rather
    than the DCD's ``nvidia.com/selector``, because that pair is unique in the namespace even
    when two graphs' DCD names collide (graph ``a-b`` service ``c``, graph ``a`` service
    ``b-c``)."""
    labels = scaling_adapter_labels(graph_name, service_name)
    return ",".join(f"{key}={value}" for key, value in sorted(labels.items()))


def scales_through_adapter(service: Mapping[str, Any] | None) -> bool:
    """A service (wire form) whose replicas an adapter owns: ``scalingAdapter.enabled`` is
    true. ``{}`` or ``enabled: false`` is off (upstream v1alpha1's meaning)."""
    if not isinstance(service, Mapping):
        return False
    adapter = service.get("scalingAdapter")
    return isinstance(adapter, Mapping) and adapter.get("enabled") is True


def service_replicas(service: Mapping[str, Any]) -> int:
    """The service's replicas as the graph means them: 1 when unset."""
    replicas = service.get("replicas")
    if isinstance(replicas, bool) or not isinstance(replicas, int):
        return DEFAULT_REPLICAS
    return replicas


def build_scaling_adapters(dgd: DynamoGraphDeployment, context: BuildContext) -> list[JsonDict]:
    """One adapter per service that scales through one, sorted by name, each controlled by the
    graph. ``spec.replicas`` is the service's replicas: the caller creates a missing adapter
    with it and never updates an existing one."""
    graph = Graph.from_model(dgd, context.default_namespace)
    adapters: list[JsonDict] = []
    for service_name, service in graph.services.items():
        if not scales_through_adapter(service):
            continue
        name = scaling_adapter_name(graph.name, service_name)
        labels = scaling_adapter_labels(graph.name, service_name)
        adapters.append(
            {
                "apiVersion": API_VERSION,
                "kind": KIND_SCALING_ADAPTER,
                "metadata": object_metadata(graph, name, labels, {}),
                "spec": {
                    "replicas": service_replicas(service),
                    "dgdRef": {"name": graph.name, "serviceName": service_name},
                },
            }
        )
    adapters.sort(key=lambda adapter: str(adapter["metadata"]["name"]))
    return adapters


def scaled_service(
    adapter: Mapping[str, Any], graph: Mapping[str, Any] | None
) -> Mapping[str, Any] | None:
    """The service (wire form) the adapter scales, or None when it scales nothing: the graph is
    not the one it names, does not control it (an adapter someone else made would fight the
    graph's own), lacks the service, or the service has no adapter any more (the graph's
    reconciler deletes such adapters)."""
    if graph is None:
        return None
    reference = _dgd_ref(adapter)
    metadata = graph.get("metadata") or {}
    if reference.get("name") != metadata.get("name"):
        return None
    if not _is_controlled_by(adapter, metadata.get("uid")):
        return None
    services = (graph.get("spec") or {}).get("services") or {}
    service = services.get(reference.get("serviceName"))
    return service if scales_through_adapter(service) else None


def service_replicas_patch(
    adapter: Mapping[str, Any], graph: Mapping[str, Any] | None
) -> JsonDict | None:
    """The JSON merge patch that writes the adapter's replicas into the graph's service, or None
    when they already agree or the adapter scales nothing (``scaled_service``).

    The patch names the graph's uid: the API server refuses it for a graph deleted and created
    again under the same name since the cache read this one, whose services may differ."""
    service = scaled_service(adapter, graph)
    replicas = (adapter.get("spec") or {}).get("replicas")
    if service is None or graph is None or not isinstance(replicas, int):
        return None
    if service_replicas(service) == replicas:
        return None
    service_name = _dgd_ref(adapter)["serviceName"]
    return {
        "metadata": {"uid": graph["metadata"]["uid"]},
        "spec": {"services": {service_name: {"replicas": replicas}}},
    }


def derive_scaling_adapter_status(
    adapter: Mapping[str, Any],
    *,
    scaled_at: datetime | None = None,
    known_scale_time: str | None = None,
) -> JsonDict:
    """The adapter's whole status: its replicas, the selector of the service's pods, and
    ``lastScaleTime`` (absent until the adapter first scaled): the latest of ``scaled_at`` (this
    pass wrote a new value into the graph), ``known_scale_time`` (one written since the adapter
    was read: the cache lags the status writes) and the one its status has."""
    spec = adapter.get("spec") or {}
    reference = _dgd_ref(adapter)
    status: JsonDict = {
        "replicas": spec.get("replicas"),
        "selector": scaling_adapter_selector(
            str(reference.get("name") or ""), str(reference.get("serviceName") or "")
        ),
    }
    # RFC 3339 in UTC with a Z, as written here: the latest sorts last.
    times = [
        (adapter.get("status") or {}).get("lastScaleTime"),
        known_scale_time,
        format_time(scaled_at) if scaled_at is not None else None,
    ]
    if known := [time for time in times if isinstance(time, str) and time]:
        status["lastScaleTime"] = max(known)
    return status


def _dgd_ref(adapter: Mapping[str, Any]) -> Mapping[str, Any]:
    reference = (adapter.get("spec") or {}).get("dgdRef")
    return reference if isinstance(reference, Mapping) else {}


def _is_controlled_by(adapter: Mapping[str, Any], graph_uid: object) -> bool:
    return bool(graph_uid) and any(
        reference.get("uid") == graph_uid
        and reference.get("kind") == KIND_GRAPH_DEPLOYMENT
        and reference.get("controller") is True
        for reference in (adapter.get("metadata") or {}).get("ownerReferences") or ()
    )
