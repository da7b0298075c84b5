"""Warn about fields the API does not define: they are kept, but nothing acts on them.

The upstream operator guide's own ``llm-agg`` example (``tests/fixtures/graphs/llm-agg.yaml``)
carries a legacy ``pvc`` block on a service; a user deserves to hear that the operator ignores it
rather than wonder why no volume appears.

This walk runs on every admission, over user data, so it is iterative (an explicit stack, no
recursion however deep the object nests), paths are kept as tuples of parts and joined into
strings only for the rare field that is reported, only fields the user set are visited, and
scalars are never descended into.
"""

from __future__ import annotations

from pydantic import BaseModel

from dynamo_operator.api import ExtraPodSpec
from dynamo_operator.validation.paths import PathPart, join_path
from dynamo_operator.validation.result import FieldIssue

_UNKNOWN = "unknown field; it is kept but ignored"


def find_unknown_fields(model: BaseModel, path: str) -> list[FieldIssue]:
    issues: list[FieldIssue] = []
    pending: list[tuple[object, tuple[PathPart, ...]]] = [(model, ())]
    while pending:
        value, parts = pending.pop()
        children: list[tuple[object, PathPart]]
        if isinstance(value, BaseModel):
            if isinstance(value, ExtraPodSpec):
                continue  # its extra fields are the pod spec overrides, known to Kubernetes
            for name in value.__pydantic_extra__ or ():
                issues.append(FieldIssue(join_path(path, *parts, name), _UNKNOWN))
            set_fields = value.model_fields_set  # unset fields hold defaults, never extras
            children = [
                (getattr(value, name), field.alias or name)
                for name, field in type(value).model_fields.items()
                if name in set_fields
            ]
        elif isinstance(value, dict):
            children = [(item, str(key)) for key, item in value.items()]
        elif isinstance(value, list):
            children = [(item, index) for index, item in enumerate(value)]
        else:
            continue
        # Pushed in reverse so that fields come out in the order the user wrote them.
        for child, part in reversed(children):
            if isinstance(child, BaseModel | dict | list):
                pending.append((child, (*parts, part)))
    return issues
