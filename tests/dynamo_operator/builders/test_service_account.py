"""Planner access: the shared ServiceAccount of planners, bound to the operator's ClusterRole."""

from __future__ import annotations

from typing import Any

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.builders.service_account import build_planner_access


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
