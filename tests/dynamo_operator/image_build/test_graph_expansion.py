from typing import Any

import pytest
import yaml

from dynamo_operator.api import DynamoGraphDeployment
from dynamo_operator.builders import (
    BuildContext,
    build_component_children,
    build_component_deployments,
    build_persistent_volume_claims,
)
from dynamo_operator.image_build import (
    ArtifactExpansionError,
    component_deployments_from_artifact,
    expand_graph_with_artifact,
    parse_artifact_manifest,
)
from dynamo_operator.validation import validate_create

IMAGE = "registry:5000/dynamo-components:dynamo.frontend.jh2o6dqzpsgfued4"
MANIFEST = parse_artifact_manifest(
    yaml.safe_load(
        """
service: graphs.agg:Frontend
entry_service: Frontend
services:
- name: Frontend
  config:
    dynamo: {enabled: true, namespace: dynamo, name: Frontend}
    resources: {cpu: "2", memory: 4Gi}
    workers: 3
    http_exposed: true
- name: VllmWorker
  config:
    dynamo: {enabled: true, namespace: dynamo, component_type: worker}
    resources: {gpu: "8", custom: {rdma/ib: "1"}}
    total_gpus: 16
    autoscaling: {min_replicas: 1, max_replicas: 4}
    extraPodSpec:
      mainContainer: {workingDir: /workspace/examples/llm, image: ignored-by-the-build}
"""
    )
)


def seed_graph(services: dict[str, Any] | None = None, **spec: Any) -> DynamoGraphDeployment:
    """The seed's GitOps graph: the artifact, global envs and per-service overrides."""
    default_services = {
        "Frontend": {"replicas": 1, "envs": [{"name": "SPECIFIC_ENV_VAR", "value": "x"}]},
        "VllmWorker": {
            "envs": [{"name": "SPECIFIC_ENV_VAR", "value": "y"}],
            "pvc": {"name": "vllm-model-storage", "mountPath": "/models", "size": "100Gi"},
        },
    }
    return DynamoGraphDeployment.model_validate(
        {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoGraphDeployment",
            "metadata": {"name": "llm-agg", "namespace": "llm"},
            "spec": {
                "dynamoComponent": "frontend:jh2o6dqzpsgfued4",
                "envs": [{"name": "GLOBAL_ENV_VAR", "value": "g"}],
                "services": default_services if services is None else services,
                **spec,
            },
        }
    )


def test_each_artifact_service_becomes_an_entry_the_graph_overrides() -> None:
    entries = component_deployments_from_artifact(seed_graph(), MANIFEST, IMAGE)

    frontend = entries["Frontend"].to_wire()
    worker = entries["VllmWorker"].to_wire()
    assert list(entries) == ["Frontend", "VllmWorker"]
    assert frontend == {
        "dynamoComponent": "frontend:jh2o6dqzpsgfued4",
        "dynamoTag": "graphs.agg:Frontend",
        "dynamoNamespace": "dynamo",
        "replicas": 1,  # the graph's replicas win over the artifact's workers
        "resources": {
            "requests": {"cpu": "2", "memory": "4Gi"},
            "limits": {"cpu": "2", "memory": "4Gi"},
        },
        "extraPodSpec": {"mainContainer": {"image": IMAGE}},
        "envs": [{"name": "SPECIFIC_ENV_VAR", "value": "x"}],
    }
    assert worker["componentType"] == "worker"
    assert worker["multinode"] == {"nodeCount": 2}
    assert worker["resources"]["limits"] == {"gpu": "8", "custom": {"rdma/ib": "1"}}
    assert worker["autoscaling"] == {"enabled": True, "minReplicas": 1, "maxReplicas": 4}
    assert worker["extraPodSpec"] == {
        "mainContainer": {"workingDir": "/workspace/examples/llm", "image": IMAGE}
    }
    assert "replicas" not in worker


def test_the_graph_s_own_image_wins_over_the_built_one() -> None:
    graph = seed_graph({"Frontend": {"extraPodSpec": {"mainContainer": {"image": "mine:1"}}}})

    entries = component_deployments_from_artifact(graph, MANIFEST, IMAGE)

    assert entries["Frontend"].to_wire()["extraPodSpec"] == {"mainContainer": {"image": "mine:1"}}
    assert entries["Frontend"].to_wire()["replicas"] == 3


def test_the_expanded_graph_goes_through_the_existing_builders_unchanged() -> None:
    graph = seed_graph()
    pristine = graph.to_wire()

    expanded = expand_graph_with_artifact(graph, MANIFEST, IMAGE)

    assert graph.to_wire() == pristine
    # Validation judges the user's graph; the expanded one may create a claim without a storage
    # class (the cluster's default), which a hand-written spec.pvcs entry may not.
    assert validate_create(graph.to_wire()).errors == ()
    context = BuildContext()
    dcds = build_component_deployments(expanded, context)
    assert [dcd["metadata"]["name"] for dcd in dcds] == ["llm-agg-frontend", "llm-agg-vllmworker"]
    frontend, worker = dcds
    assert frontend["spec"]["dynamoComponent"] == "frontend:jh2o6dqzpsgfued4"
    assert frontend["spec"]["dynamoTag"] == "graphs.agg:Frontend"
    assert frontend["spec"]["envs"] == [
        {"name": "GLOBAL_ENV_VAR", "value": "g"},
        {"name": "SPECIFIC_ENV_VAR", "value": "x"},
    ]
    deployment = next(
        obj
        for obj in build_component_children(frontend, context).objects()
        if obj["kind"] == "Deployment"
    )
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == IMAGE
    assert worker["spec"]["volumeMounts"][0]["name"] == "vllm-model-storage"
    [claim] = build_persistent_volume_claims(expanded, context)
    assert claim["metadata"]["name"] == "vllm-model-storage"
    assert claim["spec"]["resources"] == {"requests": {"storage": "100Gi"}}
    assert "storageClassName" not in claim["spec"]


def test_a_graph_may_leave_the_services_to_the_artifact() -> None:
    expanded = expand_graph_with_artifact(seed_graph({}), MANIFEST, IMAGE)

    assert list(expanded.spec.services) == ["Frontend", "VllmWorker"]
    assert expanded.spec.services["Frontend"].replicas == 3


@pytest.mark.parametrize(
    ("graph", "message"),
    [
        (
            seed_graph({"Router": {"replicas": 0}}),
            "spec.services.Router: not a service of artifact frontend:jh2o6dqzpsgfued4 "
            "(its services: Frontend, VllmWorker)",
        ),
        (
            seed_graph({"Frontend": {"replicas": 1}}, dynamoComponent=None),
            "spec.dynamoComponent: the graph names no artifact",
        ),
    ],
)
def test_what_cannot_be_expanded_says_why(graph: DynamoGraphDeployment, message: str) -> None:
    with pytest.raises(ArtifactExpansionError) as raised:
        component_deployments_from_artifact(graph, MANIFEST, IMAGE)

    assert str(raised.value) == message


def test_gpus_per_node_must_be_whole_to_spread_over_nodes() -> None:
    manifest = parse_artifact_manifest(
        {"services": [{"name": "W", "config": {"resources": {"gpu": "1.5"}, "total_gpus": 3}}]}
    )

    with pytest.raises(ArtifactExpansionError, match="must be a whole number of GPUs per node"):
        component_deployments_from_artifact(seed_graph({}), manifest, IMAGE)


def test_an_artifact_value_the_api_refuses_names_the_service_and_field() -> None:
    manifest = parse_artifact_manifest(
        {"services": [{"name": "W", "config": {"resources": {"memory": "lots"}}}]}
    )

    with pytest.raises(ArtifactExpansionError, match=r"service W of artifact .*: resources\."):
        component_deployments_from_artifact(seed_graph({}), manifest, IMAGE)
