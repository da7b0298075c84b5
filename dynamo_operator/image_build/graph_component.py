"""The DynamoComponent a graph naming an artifact creates: ``<name>--<version>`` in its namespace.

Several graphs may name the same artifact; they share one component (one build, one image), each
listed in its ``ownerReferences`` without being its controller, so Kubernetes deletes the
component (and its builder Jobs) once the last of them is gone. The operator writes the list
whole, so it is the union of the owners the component already has and this graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import (
    API_VERSION,
    KIND_COMPONENT,
    KIND_GRAPH_DEPLOYMENT,
    DynamoGraphDeployment,
    reference_api_version,
)
from dynamo_operator.image_build.errors import ArtifactExpansionError
from dynamo_operator.naming import parse_component_reference

JsonDict = dict[str, Any]


def graph_owner_reference(graph: DynamoGraphDeployment) -> JsonDict:
    reference: JsonDict = {
        "apiVersion": reference_api_version(KIND_GRAPH_DEPLOYMENT),
        "kind": KIND_GRAPH_DEPLOYMENT,
        "name": graph.metadata.name,
    }
    if graph.metadata.uid:
        reference["uid"] = graph.metadata.uid
    return reference


def build_graph_dynamo_component(
    graph: DynamoGraphDeployment,
    default_namespace: str,
    existing: Mapping[str, Any] | None = None,
) -> JsonDict:
    """The DynamoComponent ``graph`` needs; ``existing`` is the one the cache holds (its other
    owners are kept). ArtifactExpansionError when the graph names no artifact."""
    if not graph.spec.dynamo_component:
        raise ArtifactExpansionError("spec.dynamoComponent: the graph names no artifact")
    reference = parse_component_reference(graph.spec.dynamo_component)
    mine = graph_owner_reference(graph)
    others = [
        dict(owner)
        for owner in ((existing or {}).get("metadata") or {}).get("ownerReferences") or ()
        if (owner.get("kind"), owner.get("name")) != (KIND_GRAPH_DEPLOYMENT, mine["name"])
    ]
    owners = sorted(
        [*others, mine], key=lambda owner: (str(owner.get("kind")), str(owner.get("name")))
    )
    return {
        "apiVersion": API_VERSION,
        "kind": KIND_COMPONENT,
        "metadata": {
            "name": reference.resource_name,
            "namespace": graph.metadata.namespace or default_namespace,
            "ownerReferences": owners,
        },
        "spec": {"dynamoComponent": str(reference)},
    }
