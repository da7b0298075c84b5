from __future__ import annotations

from dynamo_operator.status import StatusFailure
from dynamo_operator.validation import FieldIssue, ValidationResult


def test_a_validation_failure_lists_every_field_path() -> None:
    result = ValidationResult(
        errors=(FieldIssue("spec.replicas", "must be at least 0"), FieldIssue("spec.x", "unknown"))
    )
    assert StatusFailure.invalid(result) == StatusFailure(
        "ValidationFailed", "Validation failed: spec.replicas: must be at least 0; spec.x: unknown"
    )


def test_a_reconcile_error_keeps_its_message() -> None:
    assert StatusFailure.reconcile_error("boom") == StatusFailure(
        "failed_to_reconcile_the_resources", "boom"
    )
