"""Thin adapters from an AdmissionRequest to the pure validators of ``dynamo_operator``.

The policy that is about admission rather than about our resources lives here: DELETE (and
CONNECT) is always allowed, even when the rest of the request is malformed; an UPDATE of an object
that is being deleted is allowed so finalizers can be removed; a request for a kind the endpoint
does not serve is denied, and so is an object (or old object) of another kind than the endpoint's:
validating it under its own kind would let a DynamoComponentDeployment through the
DynamoGraphDeployment endpoint, or skip the update rules with an old object of another kind.

A field the CRD does not define is admitted, with a warning, never denied. The API server decodes
the object against the installed CRD before any webhook sees it: with strict field validation
(``kubectl apply``'s default) it has already refused an unknown field, otherwise it has pruned it.
So such a field reaches admission only when the installed CRD is newer than this operator and
defines it; the API server accepted it, and a denial here would make the operator stricter than
the API it serves. The warning tells the user this operator version ignores it. The CLI, which
answers for a file before the API server sees it, reports the same field as an error
(``validate_manifest``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from dynamo_operator.api import KIND_GRAPH_DEPLOYMENT
from dynamo_operator.validation import describe
from dynamo_operator.validation.errors import UnknownKindError
from dynamo_operator.validation.result import (
    IssueReason,
    ValidationResult,
)
from webhooks.admission import AdmissionRequest, Operation, allowed_review, denied_review
from webhooks.endpoints import GROUP, WebhookEndpoint
from webhooks.errors import MalformedReviewError
from webhooks.metrics import DenialReason, RequestProblem
from webhooks.replica_writers import PLANNERS_ONLY, ReplicaWriters


class ResourceValidator(Protocol):
    """The seam to the pure validators (``dynamo_operator.validation`` satisfies it)."""

    def validate_create(self, obj: Mapping[str, Any]) -> ValidationResult: ...

    def validate_update(
        self, new: Mapping[str, Any], old: Mapping[str, Any]
    ) -> ValidationResult: ...


@dataclass(frozen=True, slots=True)
class Decision:
    """What to answer, and the reason label to count when it is a denial."""

    allowed: bool
    message: str = ""
    code: int = 200
    denial: DenialReason | None = None
    warnings: tuple[str, ...] = ()

    def to_review(self, uid: str) -> dict[str, Any]:
        if self.allowed:
            return allowed_review(uid, self.warnings)
        return denied_review(uid, self.message, code=self.code, warnings=self.warnings)


ALLOW = Decision(allowed=True)


def decide(
    endpoint: WebhookEndpoint,
    request: AdmissionRequest,
    validator: ResourceValidator,
    replica_writers: ReplicaWriters = PLANNERS_ONLY,
) -> Decision:
    """Admit or deny one request; never raises for bad content. An update of a graph that
    changes replicas a scaling adapter owns is denied unless its user is one of
    ``replica_writers`` (by default planners only)."""
    if request.operation in (Operation.DELETE, Operation.CONNECT):
        return ALLOW
    kind_problem = _kind_problem(endpoint, request)
    if kind_problem is not None:
        return _deny(kind_problem, RequestProblem.UNKNOWN_KIND, code=400)
    new = request.object
    if new is None:
        return _deny(
            f"{request.operation} request carries no object",
            RequestProblem.MALFORMED_REQUEST,
            code=400,
        )
    kind_problem = _object_kind_problem(endpoint, new, "object")
    if kind_problem is not None:
        return _deny(kind_problem, RequestProblem.UNKNOWN_KIND, code=400)
    new = _with_kind(new, endpoint)
    if request.operation is Operation.CREATE:
        return _validated(lambda: validator.validate_create(new))
    if _is_being_deleted(new):
        return ALLOW
    old = request.old_object
    if old is None:
        return _deny(
            "UPDATE request carries no oldObject", RequestProblem.MALFORMED_REQUEST, code=400
        )
    kind_problem = _object_kind_problem(endpoint, old, "oldObject")
    if kind_problem is not None:
        return _deny(kind_problem, RequestProblem.UNKNOWN_KIND, code=400)
    old = _with_kind(old, endpoint)
    if endpoint.kind == KIND_GRAPH_DEPLOYMENT:
        refusal = replica_writers.refusal(request.user_info.username, new, old)
        if refusal is not None:
            return _deny(refusal, IssueReason.IMMUTABLE_FIELD_CHANGED, code=403)
    return _validated(lambda: validator.validate_update(new, old))


def decide_malformed(error: MalformedReviewError) -> Decision:
    """The answer to a review whose request does not parse: a DELETE is allowed all the same."""
    if error.operation in (Operation.DELETE, Operation.CONNECT):
        return ALLOW
    return Decision(
        allowed=False, message=str(error), code=400, denial=RequestProblem.MALFORMED_REQUEST
    )


def _kind_problem(endpoint: WebhookEndpoint, request: AdmissionRequest) -> str | None:
    kind = request.kind
    if kind.kind == endpoint.kind and kind.group in (GROUP, ""):
        return None
    served = f"{endpoint.kind}.{GROUP}"
    return (
        f"unknown kind {describe(kind.kind)} (group {describe(kind.group)}): "
        f"this webhook validates {served}"
    )


def _object_kind_problem(
    endpoint: WebhookEndpoint, obj: Mapping[str, Any], field: str
) -> str | None:
    kind = obj.get("kind")
    if kind is None or kind == endpoint.kind:
        return None
    shown = repr(kind) if isinstance(kind, str) and len(kind) <= 63 else "another kind"
    return f"request.{field}.kind is {shown}, but this webhook validates {endpoint.kind}.{GROUP}"


def _with_kind(obj: dict[str, Any], endpoint: WebhookEndpoint) -> dict[str, Any]:
    # The validators dispatch on obj["kind"]; the apiserver always sends it, but a review may not.
    if "kind" in obj:
        return obj
    return {**obj, "kind": endpoint.kind}


def _is_being_deleted(obj: Mapping[str, Any]) -> bool:
    metadata = obj.get("metadata")
    return isinstance(metadata, Mapping) and bool(metadata.get("deletionTimestamp"))


def _validated(run: Callable[[], ValidationResult]) -> Decision:
    try:
        result = run()
    except UnknownKindError as error:
        return _deny(str(error), RequestProblem.UNKNOWN_KIND, code=400)
    warnings = tuple(str(issue) for issue in result.warnings)
    if result.allowed:
        return Decision(allowed=True, warnings=warnings)
    reason: DenialReason = result.errors[0].reason
    if not isinstance(reason, IssueReason):
        reason = IssueReason.INVALID_CONFIG
    return Decision(
        allowed=False, message=result.summary(), code=403, denial=reason, warnings=warnings
    )


def _deny(message: str, reason: DenialReason, *, code: int) -> Decision:
    return Decision(allowed=False, message=message, code=code, denial=reason)
