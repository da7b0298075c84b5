from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.builders import (
    BuildContext,
    InvalidComponentError,
    build_component_deployments,
)
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
            "apiVersion": "nvidia.com/v1beta1",
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


def test_graph_discovery_backend_is_propagated_unless_the_service_says_otherwise() -> None:
    discovery = "nvidia.com/dynamo-discovery-backend"
    dcds = by_service(
        build_component_deployments(
            graph(
                {"A": {"annotations": {"team": "a"}}, "B": {"annotations": {discovery: "etcd"}}},
                annotations={discovery: "kubernetes", "unrelated": "x"},
            ),
            BuildContext(),
        )
    )
    assert dcds["A"]["spec"]["annotations"] == {discovery: "kubernetes", "team": "a"}
    assert dcds["B"]["spec"]["annotations"] == {discovery: "etcd"}


def launching(module: str, component_type: str = "worker", **service: Any) -> dict[str, Any]:
    container = {"image": "x", "command": ["python3", "-m", module]}
    return {
        "componentType": component_type,
        "extraPodSpec": {"mainContainer": container},
        **service,
    }


def test_every_component_declares_the_backend_its_workers_launch() -> None:
    # Upstream's TestGenerateDynamoComponentsDeployments_InferBackendFrameworkForGeneratedDCDs.
    dcds = by_service(
        build_component_deployments(
            graph(
                {
                    "Frontend": launching("dynamo.frontend", "frontend"),
                    "Decode": launching("dynamo.vllm", "decode"),
                    "Prefill": launching("dynamo.vllm", "prefill"),
                    "Planner": launching("dynamo.planner", "planner"),
                }
            ),
            BuildContext(),
        )
    )
    assert {name: dcd["spec"]["backendFramework"] for name, dcd in dcds.items()} == {
        "Frontend": "vllm",
        "Decode": "vllm",
        "Prefill": "vllm",
        "Planner": "vllm",
    }


def test_only_workers_say_which_backend_a_graph_runs() -> None:
    (dcd,) = build_component_deployments(
        graph({"Engine": launching("dynamo.sglang", "main")}), BuildContext()
    )
    assert "backendFramework" not in dcd["spec"]


def test_a_graph_whose_workers_launch_no_backend_declares_none() -> None:
    (dcd,) = build_component_deployments(graph({"W": {"componentType": "worker"}}), BuildContext())
    assert "backendFramework" not in dcd["spec"]


def test_workers_launching_different_backends_are_refused() -> None:
    with pytest.raises(InvalidComponentError) as refused:
        build_component_deployments(
            graph({"A": launching("dynamo.vllm"), "B": launching("dynamo.sglang", "prefill")}),
            BuildContext(),
        )
    assert refused.value.path == "spec.backendFramework"
    assert "A vllm, B sglang" in refused.value.reason


def test_a_script_launching_two_backends_is_refused_naming_the_service() -> None:
    script = "python -m dynamo.vllm.worker && python -m dynamo.sglang"
    service = {"componentType": "worker", "extraPodSpec": {"mainContainer": {"args": [script]}}}
    with pytest.raises(InvalidComponentError) as refused:
        build_component_deployments(graph({"W": service}), BuildContext())
    assert refused.value.path == "spec.services.W.extraPodSpec.mainContainer"
    assert refused.value.reason == "launches several backends: sglang, vllm"


CONFIG = '{"F":{"port":8080,"ServiceArgs":{"workers":2,"Resources":{"CPU":"2","gpu":"1"}}}}'


def test_deployment_config_sets_resources_and_the_frontend_port() -> None:
    # Upstream's TestGenerateDynamoComponentsDeployments, "with config from DYN_DEPLOYMENT_CONFIG".
    dcds = by_service(
        build_component_deployments(
            graph(
                {
                    "F": {"componentType": "frontend", "resources": {"requests": {"cpu": "1"}}},
                    "W": {"componentType": "worker", "replicas": 1},
                },
                envs=[{"name": "DYN_DEPLOYMENT_CONFIG", "value": CONFIG}],
            ),
            BuildContext(),
        )
    )
    frontend = dcds["F"]["spec"]
    assert frontend["replicas"] == 2  # the service gives none: Workers
    assert frontend["resources"] == {
        "requests": {"cpu": "2", "gpu": "1"},
        "limits": {"cpu": "2", "gpu": "1"},
    }
    assert frontend["envs"] == [
        {
            "name": "DYN_DEPLOYMENT_CONFIG",
            "value": '{"F":{"ServiceArgs":{"Resources":{"CPU":"2","gpu":"1"},"workers":2},'
            '"port":8000}}',
        }
    ]
    worker = dcds["W"]["spec"]
    assert (worker["replicas"], "resources" in worker) == (1, False)
    assert worker["envs"] == [{"name": "DYN_DEPLOYMENT_CONFIG", "value": CONFIG}]


def test_the_service_replicas_win_over_the_deployment_config_workers() -> None:
    (dcd,) = build_component_deployments(
        graph(
            {"F": {"replicas": 3}},
            envs=[{"name": "DYN_DEPLOYMENT_CONFIG", "value": CONFIG}],
        ),
        BuildContext(),
    )
    assert dcd["spec"]["replicas"] == 3


def test_a_deployment_config_that_is_not_json_is_refused_naming_where_it_is() -> None:
    bad = [{"name": "DYN_DEPLOYMENT_CONFIG", "value": "{port: 8080}"}]
    with pytest.raises(InvalidComponentError) as from_graph:
        build_component_deployments(graph({"F": {}}, envs=bad), BuildContext())
    with pytest.raises(InvalidComponentError) as from_service:
        build_component_deployments(graph({"F": {"envs": bad}}), BuildContext())
    assert from_graph.value.path == "spec.envs"
    assert from_service.value.path == "spec.services.F.envs"
    assert from_graph.value.reason.startswith("DYN_DEPLOYMENT_CONFIG is not JSON")
