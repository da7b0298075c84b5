from pathlib import Path
from typing import Any

import pytest

from dynamo_operator.api import API_VERSION, DynamoGraphDeployment, DynamoModel
from dynamo_operator.validation import (
    IssueReason,
    UnknownKindError,
    validate_create,
    validate_manifest,
    validate_update,
)
from tests.fixtures import (
    INVALID_DOCUMENTS,
    VALID_GRAPHS,
    expected_error_paths,
    load_document,
)


@pytest.mark.parametrize("path", VALID_GRAPHS, ids=lambda p: p.stem)
def test_example_graphs_are_valid_manifests(path: Path) -> None:
    result = validate_manifest(load_document(path))

    assert result.errors == ()
    assert result.warnings == ()


@pytest.mark.parametrize("path", INVALID_DOCUMENTS, ids=lambda p: p.stem)
def test_each_invalid_document_is_rejected_at_the_expected_field(path: Path) -> None:
    expected = expected_error_paths(path)
    assert expected, f"{path.name} declares no expected error"

    result = validate_manifest(load_document(path))

    assert not result.allowed
    assert [issue.path for issue in result.errors] == expected
    assert all(issue.message for issue in result.errors)


UPSTREAM_NEWER_FIELD = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "g"},
    "spec": {"services": {"Worker": {"replicas": 1, "frontendSidecar": {"image": "frontend"}}}},
}


def test_a_manifest_with_a_field_the_api_does_not_define_is_invalid() -> None:
    """As ``kubectl apply`` answers: unknown field "spec.services.Worker.frontendSidecar"."""
    result = validate_manifest(UPSTREAM_NEWER_FIELD)

    assert not result.allowed
    assert [str(issue) for issue in result.errors] == [
        "spec.services.Worker.frontendSidecar: unknown field; the API server rejects it "
        "(or drops it when field validation is off)"
    ]


def test_admission_and_reconcilers_only_warn_about_a_field_this_version_does_not_know() -> None:
    """The API server decoded the object: such a field survives only when the installed CRD is
    newer than the operator and defines it; denying it would be stricter than the API server."""
    for result in (
        validate_create(UPSTREAM_NEWER_FIELD),
        validate_update(UPSTREAM_NEWER_FIELD, UPSTREAM_NEWER_FIELD),
    ):
        assert result.allowed
        assert [str(issue) for issue in result.warnings] == [
            "spec.services.Worker.frontendSidecar: field unknown to this operator version; "
            "it is ignored"
        ]


@pytest.mark.parametrize(
    "obj",
    [
        {"kind": "Deployment", "spec": {}},
        {"spec": {}},
        {"kind": None},
        {"kind": ["DynamoModel"]},
    ],
)
def test_an_object_of_another_kind_raises(obj: dict[str, Any]) -> None:
    with pytest.raises(UnknownKindError):
        validate_create(obj)


@pytest.mark.parametrize(
    ("obj", "path", "reason"),
    [
        ({"kind": "DynamoGraphDeployment"}, "spec", IssueReason.MISSING_REQUIRED_FIELD),
        ({"kind": "DynamoGraphDeployment", "spec": []}, "spec", IssueReason.INVALID_TYPE),
        (
            {"kind": "DynamoGraphDeployment", "spec": {"services": "Frontend"}},
            "spec.services",
            IssueReason.INVALID_TYPE,
        ),
        (
            {"kind": "DynamoGraphDeployment", "spec": {"services": {"A": {"replicas": "two"}}}},
            "spec.services.A.replicas",
            IssueReason.INVALID_TYPE,
        ),
        (
            {"kind": "DynamoModel", "spec": {"modelName": "a"}},
            "spec.baseModelName",
            IssueReason.MISSING_REQUIRED_FIELD,
        ),
        (
            {"kind": "DynamoComponentDeployment", "metadata": "x", "spec": {}},
            "metadata",
            IssueReason.INVALID_TYPE,
        ),
    ],
)
def test_malformed_content_yields_errors_instead_of_raising(
    obj: dict[str, Any], path: str, reason: IssueReason
) -> None:
    result = validate_create(obj)

    assert [(issue.path, issue.reason) for issue in result.errors] == [(path, reason)]


def test_a_foreign_api_version_is_an_error() -> None:
    result = validate_create(
        {
            "apiVersion": "nvidia.com/v1beta1",
            "kind": "DynamoModel",
            "metadata": {"name": "m"},
            "spec": {"modelName": "a", "baseModelName": "a"},
        }
    )

    assert [issue.path for issue in result.errors] == ["apiVersion"]


def test_update_also_applies_the_create_rules_to_the_new_object() -> None:
    old = {
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"services": {"A": {}}},
    }
    new = {"kind": "DynamoGraphDeployment", "metadata": {"name": "g"}, "spec": {"services": {}}}

    assert [issue.path for issue in validate_update(new, old).errors] == ["spec.services"]


def test_summary_lists_every_error_on_one_line() -> None:
    result = validate_create(
        {
            "kind": "DynamoGraphDeployment",
            "metadata": {"name": "g"},
            "spec": {
                "services": {"A": {"ingress": {"enabled": True}, "sharedMemory": {}}},
            },
        }
    )

    assert result.summary() == (
        "spec.services.A.ingress.host: required when ingress is enabled; "
        "spec.services.A.sharedMemory.size: required when disabled is false"
    )


@pytest.mark.parametrize("path", VALID_GRAPHS, ids=lambda p: p.stem)
def test_a_valid_object_comes_back_parsed_so_a_reconcile_parses_it_once(path: Path) -> None:
    document = load_document(path)

    graph = validate_create(document).model(DynamoGraphDeployment)

    assert graph.metadata.name == document["metadata"]["name"]
    with pytest.raises(TypeError, match="DynamoModel"):
        validate_create(document).model(DynamoModel)


def test_an_object_that_does_not_parse_has_no_model() -> None:
    result = validate_create({"apiVersion": API_VERSION, "kind": "DynamoModel", "spec": []})

    assert not result.allowed
    assert result.parsed is None
