"""Validation of Dynamo objects, shared by the admission webhooks, the reconcilers and the CLI."""

from dynamo_operator.field_paths import MAX_NESTING_DEPTH, describe
from dynamo_operator.validation.dispatch import (
    validate_cached,
    validate_create,
    validate_manifest,
    validate_update,
)
from dynamo_operator.validation.errors import UnknownKindError
from dynamo_operator.validation.result import (
    FieldIssue,
    IssueReason,
    ValidationResult,
)

__all__ = [
    "MAX_NESTING_DEPTH",
    "FieldIssue",
    "IssueReason",
    "UnknownKindError",
    "ValidationResult",
    "describe",
    "validate_cached",
    "validate_create",
    "validate_manifest",
    "validate_update",
]
