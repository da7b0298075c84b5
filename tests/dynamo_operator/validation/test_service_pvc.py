from typing import Any

from dynamo_operator.validation import validate_manifest


def graph(services: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "llm-agg", "namespace": "llm"},
        "spec": {"services": services, **spec},
    }


def errors(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(issue.path, issue.message) for issue in validate_manifest(obj).errors]


SEED_PVC = {"name": "vllm-model-storage", "mountPath": "/models", "size": "100Gi"}


def test_the_seed_s_service_pvc_is_valid() -> None:
    assert errors(graph({"VllmWorker": {"pvc": SEED_PVC}})) == []


def test_a_declared_claim_needs_no_size_and_can_be_mounted_by_name() -> None:
    assert (
        errors(
            graph(
                {
                    "A": {"pvc": {"name": "shared", "mountPath": "/s"}},
                    "B": {"volumeMounts": [{"name": "vllm-model-storage", "mountPoint": "/m"}]},
                    "C": {"pvc": SEED_PVC},
                },
                pvcs=[{"name": "shared"}],
            )
        )
        == []
    )


def test_a_bad_service_pvc_is_refused_at_its_fields() -> None:
    assert errors(
        graph(
            {
                "A": {"pvc": {"name": "Bad_Name", "mountPath": "models", "size": "0"}},
                "B": {"pvc": {"name": "data", "mountPath": "/d"}},
                "C": {
                    "pvc": {"name": "cache", "mountPath": "/c", "size": "1Gi"},
                    "volumeMounts": [{"name": "cache", "mountPoint": "/other"}],
                },
            }
        )
    ) == [
        ("spec.services.A.pvc.name", errors_of_name("Bad_Name")),
        ("spec.services.A.pvc.mountPath", "'models' must be an absolute path"),
        ("spec.services.A.pvc.size", "must be greater than zero (got '0')"),
        (
            "spec.services.B.pvc.size",
            "required to create claim 'data' (or declare it in spec.pvcs)",
        ),
        ("spec.services.C.pvc", "mounts 'cache' at /c again (volumeMounts)"),
    ]


def errors_of_name(name: str) -> str:
    return (
        f"'{name}' is not a valid PVC name (DNS-1123 subdomain: lowercase alphanumerics, "
        "'-' and '.', at most 253 characters)"
    )


def test_a_standalone_component_deployment_cannot_declare_a_claim() -> None:
    dcd = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "worker", "namespace": "llm"},
        "spec": {"pvc": SEED_PVC},
    }

    assert errors(dcd) == [
        (
            "spec.pvc",
            "only a graph's services can declare a pvc; mount an existing claim with volumeMounts",
        )
    ]
