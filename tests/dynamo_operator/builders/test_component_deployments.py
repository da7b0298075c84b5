from __future__ import annotations

from typing import Any

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.builders import BuildContext, build_component_deployments
from dynamo_operator.settings import OperatorSettings


def graph(
    services: dict[str, Any], annotations: dict[str, str] | None = None, **spec: Any
) -> DynamoGraphDeployment:
    return DynamoGraphDeployment.model_validate(
        {
            "metadata": {
                "name": "g",
                "namespace": "ns",
                "uid": "u",
                "annotations": annotations or {},
            },
            "spec": {"services": services, **spec},
        }
    )


def by_service(dcds: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {dcd["spec"]["serviceName"]: dcd for dcd in dcds}


def test_one_dcd_per_service_sorted_and_owned_by_the_graph() -> None:
    dcds = build_component_deployments(graph({"Worker": {}, "Frontend": {}}), BuildContext())
    assert [dcd["metadata"]["name"] for dcd in dcds] == ["g-frontend", "g-worker"]
    assert dcds[0]["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoGraphDeployment",
            "name": "g",
            "uid": "u",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]


def test_graph_env_is_merged_under_the_service_env() -> None:
    dcds = build_component_deployments(
        graph(
            {"W": {"envs": [{"name": "A", "value": "service"}]}},
            envs=[{"name": "A", "value": "graph"}, {"name": "B", "value": "graph"}],
        ),
        BuildContext(),
    )
    assert dcds[0]["spec"]["envs"] == [
        {"name": "A", "value": "service"},
        {"name": "B", "value": "graph"},
    ]


def test_backend_namespace_and_labels_come_from_the_graph() -> None:
    (dcd,) = build_component_deployments(
        graph({"W": {"labels": {"team": "a"}}}, backendFramework="sglang"), BuildContext()
    )
    assert dcd["spec"]["backendFramework"] == "sglang"
    assert dcd["spec"]["dynamoNamespace"] == "ns-g"
    assert dcd["spec"]["labels"] == {
        "team": "a",
        "nvidia.com/dynamo-component": "W",
        "nvidia.com/dynamo-namespace": "ns-g",
        "nvidia.com/dynamo-graph-deployment-name": "g",
    }


def test_planner_is_forced_onto_the_planner_service_account() -> None:
    (dcd,) = build_component_deployments(
        graph({"P": {"componentType": "planner", "extraPodSpec": {"serviceAccountName": "x"}}}),
        BuildContext(),
    )
    assert dcd["spec"]["extraPodSpec"]["serviceAccountName"] == "planner-serviceaccount"


def test_default_ingress_only_for_frontends_without_their_own() -> None:
    context = BuildContext(settings=OperatorSettings(ingress_controller_class_name="nginx"))
    dcds = by_service(
        build_component_deployments(
            graph(
                {
                    "F": {"componentType": "frontend"},
                    "Own": {"componentType": "frontend", "ingress": {"enabled": False}},
                    "W": {"componentType": "worker"},
                }
            ),
            context,
        )
    )
    assert dcds["F"]["spec"]["ingress"] == {
        "enabled": True,
        "host": "g",
        "ingressControllerClassName": "nginx",
    }
    assert dcds["Own"]["spec"]["ingress"] == {"enabled": False}
    assert "ingress" not in dcds["W"]["spec"]


def test_default_ingress_carries_the_operator_tls_secret_and_host_suffix() -> None:
    settings = OperatorSettings(
        ingress_controller_class_name="nginx",
        ingress_controller_tls_secret_name="wildcard-tls",
        ingress_host_suffix="example.com",
    )
    (dcd,) = build_component_deployments(
        graph({"F": {"componentType": "frontend"}}), BuildContext(settings=settings)
    )
    assert dcd["spec"]["ingress"] == {
        "enabled": True,
        "host": "g",
        "ingressControllerClassName": "nginx",
        "tls": {"secretName": "wildcard-tls"},
        "hostSuffix": "example.com",
    }


def test_a_graph_without_namespace_goes_to_the_context_default_namespace() -> None:
    dgd = DynamoGraphDeployment.model_validate(
        {"metadata": {"name": "g"}, "spec": {"services": {"W": {}}}}
    )
    (dcd,) = build_component_deployments(dgd, BuildContext(default_namespace="elsewhere"))
    assert dcd["metadata"]["namespace"] == "elsewhere"
    assert dcd["spec"]["dynamoNamespace"] == "elsewhere-g"


def test_no_default_ingress_without_operator_settings() -> None:
    (dcd,) = build_component_deployments(
        graph({"F": {"componentType": "frontend"}}), BuildContext()
    )
    assert "ingress" not in dcd["spec"]


def test_graph_metrics_opt_out_is_propagated_unless_the_service_says_otherwise() -> None:
    dcds = by_service(
        build_component_deployments(
            graph(
                {"A": {}, "B": {"annotations": {"nvidia.com/enable-metrics": "true"}}},
                annotations={"nvidia.com/enable-metrics": "false"},
            ),
            BuildContext(),
        )
    )
    assert dcds["A"]["spec"]["annotations"] == {"nvidia.com/enable-metrics": "false"}
    assert dcds["B"]["spec"]["annotations"] == {"nvidia.com/enable-metrics": "true"}
