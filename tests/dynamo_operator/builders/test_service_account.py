"""Planner access: the shared ServiceAccount of planners, bound to the operator's ClusterRole.
Discovery: the namespace's account, and an earlier release's account of one graph kept by the
pods that run as it."""

from __future__ import annotations

from typing import Any

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.builders.service_account import (
    build_discovery_service_account,
    build_kept_discovery_account,
    build_planner_access,
    discovery_owner,
    kept_discovery_account,
)
from dynamo_operator.constants import DISCOVERY_ACCOUNT_NAME


def _graph(services: dict[str, Any]) -> DynamoGraphDeployment:
    return DynamoGraphDeployment.model_validate(
        {"metadata": {"name": "g", "namespace": "team"}, "spec": {"services": services}}
    )


def test_a_graph_without_planner_needs_no_access() -> None:
    assert (
        build_planner_access(_graph({"Frontend": {"componentType": "frontend"}}), "team", "r") == []
    )


def test_a_planner_gets_the_shared_service_account_bound_to_the_cluster_role() -> None:
    objects = build_planner_access(_graph({"Planner": {"componentType": "planner"}}), "team", "pr")
    account, binding = objects
    assert account["kind"] == "ServiceAccount"
    assert account["metadata"]["name"] == "planner-serviceaccount"
    assert "ownerReferences" not in account["metadata"]  # shared by every graph of the namespace
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "pr",
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "planner-serviceaccount", "namespace": "team"}
    ]


def test_without_a_cluster_role_only_the_service_account_is_created() -> None:
    objects = build_planner_access(_graph({"Planner": {"componentType": "planner"}}), "team", None)
    assert [obj["kind"] for obj in objects] == ["ServiceAccount"]


GRAPH_COMPONENT = {
    "metadata": {
        "name": "g-worker",
        "ownerReferences": [
            {"kind": "DynamoGraphDeployment", "name": "g", "uid": "u", "controller": True}
        ],
    }
}


def _deployment(account: str) -> dict[str, Any]:
    return {"kind": "Deployment", "spec": {"template": {"spec": {"serviceAccountName": account}}}}


def test_pods_running_as_their_graphs_own_account_keep_it() -> None:
    """An earlier release's account of one graph: moving the pods to the namespace's would roll
    them on upgrade."""
    assert kept_discovery_account(GRAPH_COMPONENT, [_deployment("g-k8s-service-discovery")]) == (
        "g-k8s-service-discovery"
    )
    workers = {"workerTemplate": {"spec": {"serviceAccountName": "g-k8s-service-discovery"}}}
    group = {"kind": "LeaderWorkerSet", "spec": {"leaderWorkerTemplate": workers}}
    assert kept_discovery_account(GRAPH_COMPONENT, [group]) == "g-k8s-service-discovery"
    standalone = {"metadata": {"name": "solo"}}
    assert kept_discovery_account(standalone, [_deployment("solo-k8s-service-discovery")]) == (
        "solo-k8s-service-discovery"
    )


def test_new_pods_and_pods_on_another_account_run_as_the_namespaces() -> None:
    assert kept_discovery_account(GRAPH_COMPONENT, []) is None
    assert kept_discovery_account(GRAPH_COMPONENT, [_deployment(DISCOVERY_ACCOUNT_NAME)]) is None
    # Another graph's account is not this one's to keep.
    assert kept_discovery_account(GRAPH_COMPONENT, [_deployment("h-k8s-service-discovery")]) is None


def test_the_namespace_account_is_no_graphs_and_the_kept_one_its_graphs() -> None:
    shared = build_discovery_service_account("team")
    assert shared["metadata"]["name"] == DISCOVERY_ACCOUNT_NAME
    assert "ownerReferences" not in shared["metadata"]
    owner = discovery_owner({"apiVersion": "nvidia.com/v1alpha1", "kind": "X", **GRAPH_COMPONENT})
    kept = build_kept_discovery_account("team", owner)
    assert kept["metadata"]["name"] == "g-k8s-service-discovery"
    assert kept["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "nvidia.com/v1beta1",
            "kind": "DynamoGraphDeployment",
            "name": "g",
            "uid": "u",
        }
    ]
