"""Warn about fields the API does not define: they are kept, but nothing acts on them.

The seeds' own ``llm-agg`` example carries a legacy ``pvc`` block on a service; a user deserves to
hear that the operator ignores it rather than wonder why no volume appears.
"""

from __future__ import annotations

from pydantic import BaseModel

from dynamo_operator.api import ExtraPodSpec
from dynamo_operator.validation.paths import join_path
from dynamo_operator.validation.result import FieldIssue


def find_unknown_fields(model: BaseModel, path: str) -> list[FieldIssue]:
    issues: list[FieldIssue] = []
    if isinstance(model, ExtraPodSpec):
        return issues  # its extra fields are the pod spec overrides, known to Kubernetes
    for name in model.model_extra or {}:
        issues.append(FieldIssue(join_path(path, name), "unknown field; it is kept but ignored"))
    for field_name, field in type(model).model_fields.items():
        alias = field.alias or field_name
        issues.extend(_find_in_value(getattr(model, field_name), join_path(path, alias)))
    return issues


def _find_in_value(value: object, path: str) -> list[FieldIssue]:
    if isinstance(value, BaseModel):
        return find_unknown_fields(value, path)
    if isinstance(value, dict):
        return [
            issue
            for key, item in value.items()
            for issue in _find_in_value(item, join_path(path, str(key)))
        ]
    if isinstance(value, list):
        return [
            issue
            for index, item in enumerate(value)
            for issue in _find_in_value(item, join_path(path, index))
        ]
    return []
