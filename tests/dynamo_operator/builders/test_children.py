from __future__ import annotations

import copy

import pytest

from dynamo_operator.builders import (
    BuildContext,
    InvalidComponentError,
    MultinodeUnsupported,
    build_component_children,
)
from dynamo_operator.builders.children import build_workload

from .factories import IMAGE, component, context, dcd_model, multinode_worker


def test_multinode_without_lws_is_a_typed_unsupported_outcome() -> None:
    outcome = build_workload(multinode_worker("vllm"), context(available_apis=frozenset()))
    assert isinstance(outcome, MultinodeUnsupported)
    assert outcome.reason == "LeaderWorkerSetUnavailable"
    assert "g-worker" in outcome.message


def test_children_of_unsupported_multinode_have_no_workload_but_a_warning() -> None:
    dcd = dcd_model(componentType="worker", backendFramework="vllm", multinode={"nodeCount": 2})
    children = build_component_children(dcd, context(available_apis=frozenset({"volcano"})))
    assert children.unsupported is not None
    assert children.workload == []
    assert [obj["kind"] for obj in children.objects()] == ["Service"]
    assert children.warnings
    assert children.needs_unserved_api  # LeaderWorkerSet may have been installed since


def test_children_the_served_apis_can_build_need_no_other() -> None:
    dcd = dcd_model(componentType="worker", backendFramework="vllm", multinode={"nodeCount": 2})
    assert not build_component_children(dcd, context()).needs_unserved_api
    assert not build_component_children(
        dcd_model(), context(available_apis=frozenset())
    ).needs_unserved_api


def test_lws_without_volcano_has_no_pod_group_and_no_volcano_scheduler() -> None:
    outcome = build_workload(multinode_worker("sglang"), context(available_apis=frozenset({"lws"})))
    assert not isinstance(outcome, MultinodeUnsupported)
    assert [obj["kind"] for obj in outcome] == ["LeaderWorkerSet"]
    template = outcome[0]["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    assert "schedulerName" not in template["spec"]
    assert "scheduling.k8s.io/group-name" not in template["metadata"]["annotations"]


def test_one_lws_and_pod_group_per_replica() -> None:
    worker = component(
        componentType="worker",
        backendFramework="sglang",
        replicas=3,
        multinode={"nodeCount": 4},
        extraPodSpec={"mainContainer": {"image": IMAGE, "command": ["python3"]}},
    )
    outcome = build_workload(worker, context())
    assert not isinstance(outcome, MultinodeUnsupported)
    names = [(obj["kind"], obj["metadata"]["name"]) for obj in outcome]
    assert names == [
        (kind, f"g-worker-{index}")
        for index in range(3)
        for kind in ("PodGroup", "LeaderWorkerSet")
    ]
    assert all(obj["spec"]["minMember"] == 4 for obj in outcome if obj["kind"] == "PodGroup")


def test_builders_never_mutate_the_model() -> None:
    dcd = dcd_model(
        componentType="worker",
        backendFramework="trtllm",
        multinode={"nodeCount": 2},
        envs=[{"name": "B", "value": "1"}, {"name": "A", "value": "2"}],
        autoscaling={"enabled": True, "maxReplicas": 3},
        ingress={"enabled": True, "host": "x", "ingressControllerClassName": "nginx"},
        extraPodSpec={
            "volumes": [{"name": "v", "emptyDir": {}}],
            "mainContainer": {"image": IMAGE, "env": [{"name": "Z", "value": "z"}]},
        },
    )
    pristine = copy.deepcopy(dcd)
    children = build_component_children(dcd, context(nats_addr="nats://n"))
    assert dcd == pristine
    # The output is independent of the model: editing it does not reach the model either.
    for obj in children.objects():
        obj["metadata"]["labels"]["edited"] = "yes"
    assert dcd == pristine


def test_every_child_lives_in_the_component_namespace_controlled_by_it() -> None:
    dcd = dcd_model(
        componentType="frontend",
        labels={"team": "a", "nvidia.com/selector": "spoofed"},
        autoscaling={"enabled": True, "maxReplicas": 3},
        ingress={
            "enabled": True,
            "host": "x",
            "ingressControllerClassName": "nginx",
            "labels": {"team": "ingress", "edge": "yes"},
            "annotations": {"nginx.ingress.kubernetes.io/proxy-body-size": "0"},
        },
        extraPodSpec={"mainContainer": {"image": IMAGE}},
    )
    children = build_component_children(dcd, context())
    assert [obj["kind"] for obj in children.objects()] == [
        "Deployment",
        "Service",
        "Ingress",
        "HorizontalPodAutoscaler",
    ]
    for obj in children.objects():
        metadata = obj["metadata"]
        assert metadata["name"] == "g-worker"
        assert metadata["namespace"] == "ns"
        assert metadata["ownerReferences"] == [
            {
                "apiVersion": "nvidia.com/v1beta1",
                "kind": "DynamoComponentDeployment",
                "name": "g-worker",
                "uid": "uid-1",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        assert metadata["labels"]["nvidia.com/selector"] == "g-worker"
    ingress = children.ingress
    assert ingress is not None
    # The ingress spec's own labels beat the DCD's, and the system labels beat both.
    assert ingress["metadata"]["labels"]["team"] == "ingress"
    assert ingress["metadata"]["labels"]["edge"] == "yes"
    assert ingress["metadata"]["annotations"] == {
        "nginx.ingress.kubernetes.io/proxy-body-size": "0"
    }


def test_a_component_without_image_builds_with_a_warning() -> None:
    children = build_component_children(dcd_model(componentType="worker"), context())
    assert children.warnings == (
        "ns/g-worker: no extraPodSpec.mainContainer.image; the API server will reject its pods",
    )


def test_a_planner_written_directly_runs_as_the_planner_service_account() -> None:
    planner = dcd_model(componentType="planner", extraPodSpec={"mainContainer": {"image": IMAGE}})
    (deployment,) = build_component_children(planner, context()).workload
    assert deployment["spec"]["template"]["spec"]["serviceAccountName"] == "planner-serviceaccount"
    own = dcd_model(
        componentType="planner",
        extraPodSpec={"serviceAccountName": "mine", "mainContainer": {"image": IMAGE}},
    )
    (deployment,) = build_component_children(own, context()).workload
    assert deployment["spec"]["template"]["spec"]["serviceAccountName"] == "mine"


def test_a_component_without_namespace_goes_to_the_context_default_namespace() -> None:
    dcd = dcd_model(componentType="worker", extraPodSpec={"mainContainer": {"image": IMAGE}})
    placed = dcd.model_copy(
        update={"metadata": dcd.metadata.model_copy(update={"namespace": None})}
    )
    children = build_component_children(placed, BuildContext(default_namespace="elsewhere"))
    assert {obj["metadata"]["namespace"] for obj in children.objects()} == {"elsewhere"}


def test_a_command_launching_two_backends_builds_nothing() -> None:
    # Upstream's TestDetectBackendFrameworkFromArgs "multiple backends detected" is an error.
    script = "python3 -m dynamo.vllm & python3 -m dynamo.trtllm"
    dcd = dcd_model(componentType="worker", extraPodSpec={"mainContainer": {"args": [script]}})

    with pytest.raises(InvalidComponentError) as refused:
        build_component_children(dcd, context())
    assert str(refused.value) == (
        "spec.extraPodSpec.mainContainer: launches several backends: trtllm, vllm"
    )
