"""Validating an object written at v1beta1: its own rules first, then v1alpha1's on its twin.

Every message names the field where the user wrote it, at v1beta1:
1. the v1beta1 schema (the model of the version: wrong types, unknown fields) and the rules of the
   v1beta1 shape (``v1beta1``), on the object as written;
2. then the object converted to v1alpha1 (``dynamo_operator.conversion.convert``, the very
   conversion the API server asks the webhook for) goes through every v1alpha1 rule, and each
   issue's path is mapped back (``beta_path``): what both versions can say is checked by one set
   of rules, so a graph is valid or not whatever version it is written at.
The result's parsed model is the v1alpha1 twin, what the reconcilers build from.

A conversion that fails is an error at the field it names; the v1alpha1 rules then cannot run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from pydantic import BaseModel, ValidationError

# The module, not its names: conversion maps paths with validation's helpers, so whichever
# package is imported first finds the other partly initialised.
from dynamo_operator import conversion
from dynamo_operator.api import API_VERSION, KIND_COMPONENT_DEPLOYMENT, KIND_GRAPH_DEPLOYMENT
from dynamo_operator.api import v1beta1 as beta
from dynamo_operator.api.constants import BETA_API_VERSION, BETA_VERSION
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.paths import issues_from_validation_error
from dynamo_operator.validation.result import FieldIssue
from dynamo_operator.validation.unknown_fields import UnknownFields, report_unknown_fields
from dynamo_operator.validation.v1beta1 import (
    validate_beta_component_deployment,
    validate_beta_component_deployment_update,
    validate_beta_graph_deployment,
    validate_beta_graph_deployment_update,
)
from dynamo_operator.validation.wire import spec_of

AlphaCheck = Callable[[Mapping[str, Any], IssueCollector], BaseModel | None]
"""Runs the v1alpha1 rules of a kind on an object (no unknown-field walk); its parsed model."""


@dataclass(frozen=True, slots=True)
class BetaRules:
    kind: str
    model: type[BaseModel]
    on_create: Callable[[BaseModel, Mapping[str, Any], IssueCollector, bool], None]
    on_update: Callable[[Mapping[str, Any], Mapping[str, Any], IssueCollector], None]


def _graph_rules(
    parsed: BaseModel, wire: Mapping[str, Any], issues: IssueCollector, from_artifact: bool
) -> None:
    graph = cast(beta.DynamoGraphDeployment, parsed)  # BETA_RULES pairs it with its model
    validate_beta_graph_deployment(graph, wire, issues, image_from_artifact=from_artifact)


def _component_rules(
    parsed: BaseModel, wire: Mapping[str, Any], issues: IssueCollector, from_artifact: bool
) -> None:
    validate_beta_component_deployment(wire, issues, image_from_artifact=from_artifact)


BETA_RULES: dict[str, BetaRules] = {
    KIND_GRAPH_DEPLOYMENT: BetaRules(
        KIND_GRAPH_DEPLOYMENT,
        beta.DynamoGraphDeployment,
        _graph_rules,
        validate_beta_graph_deployment_update,
    ),
    KIND_COMPONENT_DEPLOYMENT: BetaRules(
        KIND_COMPONENT_DEPLOYMENT,
        beta.DynamoComponentDeployment,
        _component_rules,
        validate_beta_component_deployment_update,
    ),
}


def validate_beta_content(
    obj: Mapping[str, Any],
    rules: BetaRules,
    issues: IssueCollector,
    check_alpha: AlphaCheck,
    *,
    unknown: UnknownFields,
) -> BaseModel | None:
    """The v1beta1 rules, then the v1alpha1 ones on the converted object; the v1alpha1 model."""
    report_unknown_fields(obj, rules.kind, BETA_VERSION, issues, unknown)
    try:
        parsed = rules.model.model_validate(obj)
    except ValidationError as error:
        issues.add_errors(issues_from_validation_error(error))
        return None
    try:
        twin = conversion.convert(obj, API_VERSION)
    except conversion.ConversionError as error:
        rules.on_create(parsed, obj, issues, False)
        issues.error(error.path, error.reason)
        return None
    own = IssueCollector()
    rules.on_create(parsed, obj, own, bool(spec_of(twin).get("dynamoComponent")))
    found = own.result()
    twin_issues = IssueCollector()
    alpha = check_alpha(twin, twin_issues)
    mapped = twin_issues.result()
    issues.add_errors(found.errors)
    issues.add_errors(_not_reported(_at_beta_paths(obj, mapped.errors), found.errors))
    issues.add_warnings(found.warnings)
    issues.add_warnings(_at_beta_paths(obj, mapped.warnings))
    return alpha


def validate_beta_update(
    new: Mapping[str, Any], old: Mapping[str, Any], rules: BetaRules, issues: IssueCollector
) -> None:
    """The update rules at v1beta1."""
    at_version = old_at_version_of(new, old)
    if at_version is not None:
        rules.on_update(new, at_version, issues)


def old_at_version_of(new: Mapping[str, Any], old: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``old`` at ``new``'s version, converted when written at the other one (the API server sends
    both at the request's version, a caller may not); None when it does not convert (then it
    cannot constrain the new object)."""
    version = new.get("apiVersion")
    other = {API_VERSION: BETA_API_VERSION, BETA_API_VERSION: API_VERSION}.get(str(version))
    if other is None or old.get("apiVersion") != other:
        return old  # same version, or none said: taken as written
    try:
        return conversion.convert(old, str(version))
    except conversion.ConversionError:
        return None


def _at_beta_paths(obj: Mapping[str, Any], issues: tuple[FieldIssue, ...]) -> list[FieldIssue]:
    return [
        FieldIssue(
            conversion.beta_path(obj, issue.path) if issue.path else "", issue.message, issue.reason
        )
        for issue in issues
    ]


__all__ = [
    "BETA_RULES",
    "BetaRules",
    "old_at_version_of",
    "validate_beta_content",
    "validate_beta_update",
]


def _not_reported(issues: list[FieldIssue], reported: tuple[FieldIssue, ...]) -> list[FieldIssue]:
    """``issues`` but those the v1beta1 rules already reported: the same reason at the same
    field or at the entry holding it (two components whose names differ only by case are one
    duplicate name at v1beta1, and one colliding generated name at v1alpha1)."""
    seen = {(issue.path, issue.reason) for issue in reported}
    seen |= {(_entry_of(issue.path), issue.reason) for issue in reported}
    return [issue for issue in issues if (issue.path, issue.reason) not in seen]


def _entry_of(path: str) -> str:
    return path.rsplit(".", 1)[0] if "." in path else path
