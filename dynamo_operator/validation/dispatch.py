"""Entry points: validate any Dynamo object on create or update, dispatching on its kind.

Both take raw wire dicts (camelCase, as the API server or a YAML file gives them) and never raise
for bad content: a document that does not parse yields errors with the offending field paths.
Only an object that is not one of the Dynamo kinds raises, because no rule set applies to it.
An object nested deeper than ``MAX_NESTING_DEPTH`` is refused before anything walks it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from dynamo_operator.api import (
    API_VERSION,
    KIND_COMPONENT_DEPLOYMENT,
    KIND_GRAPH_DEPLOYMENT,
    KIND_MODEL,
    DynamoComponentDeployment,
    DynamoGraphDeployment,
    DynamoModel,
)
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.component_deployment import (
    validate_component_deployment,
    validate_component_deployment_update,
)
from dynamo_operator.validation.graph_deployment import (
    validate_graph_deployment,
    validate_graph_deployment_update,
)
from dynamo_operator.validation.model import validate_model, validate_model_update
from dynamo_operator.validation.nesting import find_excessive_nesting, nesting_message
from dynamo_operator.validation.paths import describe, issues_from_validation_error
from dynamo_operator.validation.result import IssueReason, UnknownKindError, ValidationResult
from dynamo_operator.validation.unknown_fields import find_unknown_fields

UpdateRules = Callable[[Mapping[str, Any], Mapping[str, Any], IssueCollector], None]


@dataclass(frozen=True, slots=True)
class _KindRules:
    model: type[BaseModel]
    on_create: Callable[[Any, IssueCollector], None]
    on_update: UpdateRules


_RULES: dict[str, _KindRules] = {
    KIND_GRAPH_DEPLOYMENT: _KindRules(
        DynamoGraphDeployment, validate_graph_deployment, validate_graph_deployment_update
    ),
    KIND_COMPONENT_DEPLOYMENT: _KindRules(
        DynamoComponentDeployment,
        validate_component_deployment,
        validate_component_deployment_update,
    ),
    KIND_MODEL: _KindRules(DynamoModel, validate_model, validate_model_update),
}


def validate_create(obj: Mapping[str, Any]) -> ValidationResult:
    issues = IssueCollector()
    _validate_content(obj, _rules_for(obj), issues)
    return issues.result()


def validate_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> ValidationResult:
    rules = _rules_for(new)
    issues = IssueCollector()
    _validate_content(new, rules, issues)
    if isinstance(old, Mapping) and old.get("kind") == new.get("kind"):
        rules.on_update(new, old, issues)
    return issues.result()


def _rules_for(obj: Mapping[str, Any]) -> _KindRules:
    kind = obj.get("kind") if isinstance(obj, Mapping) else None
    rules = _RULES.get(kind) if isinstance(kind, str) else None
    if rules is None:
        raise UnknownKindError(f"not a Dynamo kind: {describe(kind)}")
    return rules


def _validate_content(obj: Mapping[str, Any], rules: _KindRules, issues: IssueCollector) -> None:
    too_deep = find_excessive_nesting(obj)
    if too_deep is not None:
        issues.error("", nesting_message(too_deep), IssueReason.MALFORMED_OBJECT)
        return
    api_version = obj.get("apiVersion")
    if api_version is not None and api_version != API_VERSION:
        issues.error(
            "apiVersion",
            f"must be {API_VERSION} (got {describe(api_version)})",
            IssueReason.INVALID_CONFIG,
        )
    try:
        parsed = rules.model.model_validate(obj)
    except ValidationError as error:
        issues.add_errors(issues_from_validation_error(error))
        return
    spec = getattr(parsed, "spec", None)
    if isinstance(spec, BaseModel):
        issues.add_warnings(find_unknown_fields(spec, "spec"))
    rules.on_create(parsed, issues)
