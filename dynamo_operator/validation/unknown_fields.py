"""Warn about fields the API does not define: they are kept, but nothing acts on them.

The upstream operator guide's own ``llm-agg`` example (``tests/fixtures/graphs/llm-agg.yaml``)
carries a legacy ``pvc`` block on a service; a user deserves to hear that the operator ignores it
rather than wonder why no volume appears.

This walk runs on every admission, so paths are kept as tuples of parts and joined into strings
only for the rare field that is reported; only fields the user set are visited, and scalars are
never descended into.
"""

from __future__ import annotations

from pydantic import BaseModel

from dynamo_operator.api import ExtraPodSpec
from dynamo_operator.validation.paths import PathPart, join_path
from dynamo_operator.validation.result import FieldIssue

_UNKNOWN = "unknown field; it is kept but ignored"


def find_unknown_fields(model: BaseModel, path: str) -> list[FieldIssue]:
    issues: list[FieldIssue] = []
    _collect(model, path, (), issues)
    return issues


def _collect(
    value: object, base: str, parts: tuple[PathPart, ...], issues: list[FieldIssue]
) -> None:
    if isinstance(value, BaseModel):
        if isinstance(value, ExtraPodSpec):
            return  # its extra fields are the pod spec overrides, known to Kubernetes
        for name in value.__pydantic_extra__ or ():
            issues.append(FieldIssue(join_path(base, *parts, name), _UNKNOWN))
        set_fields = value.model_fields_set  # unset fields hold defaults, never extras
        for field_name, field in type(value).model_fields.items():
            if field_name in set_fields:
                child = getattr(value, field_name)
                if isinstance(child, BaseModel | dict | list):
                    _collect(child, base, (*parts, field.alias or field_name), issues)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, BaseModel | dict | list):
                _collect(item, base, (*parts, str(key)), issues)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, BaseModel | dict | list):
                _collect(item, base, (*parts, index), issues)
