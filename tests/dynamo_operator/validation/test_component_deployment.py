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
    obj = component(backendFramework="vllm", multinode={"nodeCount": 2})

    assert validate_update(obj, obj).allowed
