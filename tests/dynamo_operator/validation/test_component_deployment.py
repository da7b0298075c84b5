from typing import Any

from dynamo_operator.validation import IssueReason, validate_create, validate_update


def component(name: str = "g-worker", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": spec,
    }


def test_shared_service_rules_apply_at_spec_level() -> None:
    result = validate_create(component(ingress={"enabled": True}, replicas=2))

    assert [e.path for e in result.errors] == ["spec.ingress.host"]


def test_mounts_of_a_standalone_component_refer_to_existing_claims() -> None:
    result = validate_create(component(volumeMounts=[{"name": "existing", "mountPoint": "/m"}]))

    assert result.allowed


def test_its_own_name_becomes_the_service_name_and_must_be_a_dns_label() -> None:
    [error] = validate_create(component(name="g.worker")).errors

    assert (error.path, error.reason) == ("metadata.name", IssueReason.INVALID_NAME)


def test_backend_framework_is_immutable() -> None:
    result = validate_update(
        component(backendFramework="trtllm"), component(backendFramework="vllm")
    )

    assert [(e.path, e.reason) for e in result.errors] == [
        ("spec.backendFramework", IssueReason.IMMUTABLE_FIELD_CHANGED)
    ]


def test_unchanged_update_is_allowed() -> None:
    obj = component(
        backendFramework="vllm",
        multinode={"nodeCount": 2},
        extraPodSpec={"mainContainer": {"image": "vllm"}},
    )

    assert validate_update(obj, obj).allowed


def test_declaring_the_backend_of_a_component_that_had_none_is_allowed() -> None:
    """A graph without backendFramework now declares its workers' backend on the components it
    generates, also on those it generated before (upstream refuses that update)."""
    launch = {"mainContainer": {"image": "vllm", "command": ["python3", "-m", "dynamo.vllm"]}}
    before = component(componentType="worker", extraPodSpec=launch)
    after = component(componentType="worker", extraPodSpec=launch, backendFramework="vllm")

    assert validate_update(after, before).allowed
    assert not validate_update(before, after).allowed  # removing it is a change


def test_a_multinode_component_needs_an_image_unless_it_runs_a_built_artifact() -> None:
    # Upstream's "error from generateLeaderPodTemplateSpec": image is not set for component.
    result = validate_create(
        component(multinode={"nodeCount": 2}, resources={"limits": {"gpu": "1"}})
    )

    assert [(e.path, e.reason) for e in result.errors] == [
        ("spec.extraPodSpec.mainContainer.image", IssueReason.MISSING_REQUIRED_FIELD)
    ]
    assert validate_create(component(multinode={"nodeCount": 2}, dynamoComponent="llm:v1")).allowed


def owned_by_graph(obj: dict[str, Any]) -> dict[str, Any]:
    reference = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment"}
    obj["metadata"]["ownerReferences"] = [
        {**reference, "name": "g", "uid": "u", "controller": True}
    ]
    return obj


def test_a_standalone_dynamo_namespace_is_honoured_with_a_deprecation_warning() -> None:
    result = validate_create(component(dynamoNamespace="shared"))
    generated = validate_create(owned_by_graph(component(dynamoNamespace="llm-g")))

    assert result.allowed
    assert [(w.path, w.message.split(":")[0]) for w in result.warnings] == [
        ("spec.dynamoNamespace", "deprecated")
    ]
    assert "<namespace>-<graph> ('llm-g-worker')" in result.warnings[0].message
    assert generated.warnings == ()  # a graph's own: the graph is warned about


def test_a_component_discovery_backend_is_kubernetes_or_etcd() -> None:
    annotation = "nvidia.com/dynamo-discovery-backend"
    [error] = validate_create(component(annotations={annotation: "dns"})).errors

    assert error.path == f"spec.annotations.{annotation}"
    assert validate_create(component(annotations={annotation: "etcd"})).allowed
