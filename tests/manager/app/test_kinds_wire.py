"""The operator's kinds: each stored at v1beta1 travels there, converted in-process."""

from __future__ import annotations

from typing import Any

from dynamo_operator.conversion import convert
from dynamo_operator.crd import CUSTOM_RESOURCES, SCALING_RESOURCES
from manager.app.kinds import COMPONENT, CUSTOM_KINDS, GRAPH, MODEL, SCALING_ADAPTER


def alpha_graph() -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "ns", "annotations": {"team": "a"}},
        "spec": {
            "services": {
                "Frontend": {"componentType": "frontend", "replicas": 1, "dynamoNamespace": "x"}
            }
        },
        "status": {"state": "pending", "services": {"Frontend": {"replicas": 1}}},
    }


def test_every_kind_stored_at_v1beta1_travels_there_and_no_other() -> None:
    stored = {
        resource.kind: resource.storage_version.name
        for resource in (*CUSTOM_RESOURCES, *SCALING_RESOURCES)
    }
    assert {kind: k.wire_api_version for kind, k in CUSTOM_KINDS.items()} == {
        kind: f"nvidia.com/{version}" for kind, version in stored.items()
    }
    assert {GRAPH.wire_api_version, COMPONENT.wire_api_version} == {"nvidia.com/v1beta1"}
    assert SCALING_ADAPTER.wire_api_version == "nvidia.com/v1beta1"
    assert MODEL.wire is None
    assert GRAPH.api_version == "nvidia.com/v1alpha1", "the reconcilers still see v1alpha1"


def test_a_graph_goes_out_at_v1beta1_and_comes_back_as_it_was_without_managed_fields() -> None:
    assert GRAPH.wire is not None
    graph = alpha_graph()

    sent = GRAPH.wire.encode(graph)
    stored = {**sent, "metadata": {**sent["metadata"], "managedFields": [{"manager": "m"}]}}
    read = GRAPH.wire.decode(stored)

    assert sent["apiVersion"] == "nvidia.com/v1beta1"
    assert [c["name"] for c in sent["spec"]["components"]] == ["Frontend"]
    assert read == graph


def test_an_object_that_cannot_be_converted_is_kept_as_it_came() -> None:
    """The reconciler then validates it and reports the field in the graph's status (the API
    server never stores such metadata; conversion carries anything else across in its
    annotation)."""
    assert GRAPH.wire is not None
    beta = convert(alpha_graph(), "nvidia.com/v1beta1")
    beta["metadata"]["annotations"] = "not a map"

    assert GRAPH.wire.decode(beta) is beta
