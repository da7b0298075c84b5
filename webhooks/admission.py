"""AdmissionReview ``admission.k8s.io/v1``: parsing requests and building responses.

Parsing is layered so that every failure gets the best answer possible: a body we cannot read,
or a review without a ``request.uid``, can only get an HTTP 400 (there is nothing to echo); a review
with a uid but an otherwise malformed request gets a well-formed denial the apiserver can show.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dynamo_operator.validation import describe
from webhooks.errors import MalformedReviewError, UnanswerableReviewError

ADMISSION_API_VERSION = "admission.k8s.io/v1"
ADMISSION_KIND = "AdmissionReview"

# The apiserver limits request bodies to 3 MiB and etcd stores at most 1.5 MiB per object, so an
# honest review (object plus oldObject) always fits; anything larger is refused before parsing.
MAX_BODY_BYTES = 3 * 1024 * 1024


class Operation(StrEnum):
    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    CONNECT = "CONNECT"


class GroupVersionKind(BaseModel):
    model_config = ConfigDict(frozen=True)

    group: str = ""
    version: str = ""
    kind: str


class UserInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    username: str = ""
    uid: str = ""
    groups: list[str] = Field(default_factory=list)


class AdmissionRequest(BaseModel):
    """The fields of ``AdmissionReview.request`` that validation needs; the rest are ignored."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    uid: str = Field(min_length=1)
    kind: GroupVersionKind
    operation: Operation
    name: str = ""
    namespace: str = ""
    object: dict[str, Any] | None = None
    old_object: dict[str, Any] | None = Field(default=None, alias="oldObject")
    user_info: UserInfo = Field(default_factory=UserInfo, alias="userInfo")
    dry_run: bool = Field(default=False, alias="dryRun")


def parse_review(body: bytes) -> AdmissionRequest:
    """Parse a raw request body into its AdmissionRequest.

    Raises UnanswerableReviewError when no uid can be echoed, MalformedReviewError (carrying the
    uid) when the request can be answered with a denial.
    """
    request = unwrap_review(body, ADMISSION_KIND, ADMISSION_API_VERSION)
    try:
        return AdmissionRequest.model_validate(request)
    except ValidationError as error:
        raise MalformedReviewError(
            f"malformed AdmissionReview request: {_describe(error)}",
            uid=request["uid"],
            operation=request.get("operation"),
        ) from None


def unwrap_review(body: bytes, kind: str, api_version: str) -> dict[str, Any]:
    """The ``request`` of a review body of ``kind`` at ``api_version`` (an AdmissionReview, a
    ConversionReview), with a non-empty ``uid``; UnanswerableReviewError for anything less:
    there is nothing to echo an answer to."""
    if len(body) > MAX_BODY_BYTES:
        raise UnanswerableReviewError(
            f"request body of {len(body)} bytes exceeds the limit of {MAX_BODY_BYTES} bytes"
        )
    try:
        review = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise UnanswerableReviewError(f"request body is not valid JSON: {error}") from None
    if not isinstance(review, dict):
        raise UnanswerableReviewError("request body is not a JSON object")
    if review.get("kind") != kind:
        raise UnanswerableReviewError(f"expected kind {kind}, got {describe(review.get('kind'))}")
    if review.get("apiVersion") != api_version:
        raise UnanswerableReviewError(
            f"unsupported {kind} apiVersion {describe(review.get('apiVersion'))}; "
            f"only {api_version} is served"
        )
    request = review.get("request")
    if not isinstance(request, dict):
        raise UnanswerableReviewError(f"{kind} has no request object")
    uid = request.get("uid")
    if not isinstance(uid, str) or not uid:
        raise UnanswerableReviewError(f"{kind} request has no uid")
    return request


def _describe(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    location = ".".join(str(part) for part in first["loc"]) or "request"
    return f"request.{location}: {first['msg']}"


def allowed_review(uid: str, warnings: Sequence[str] = ()) -> dict[str, Any]:
    response: dict[str, Any] = {"uid": uid, "allowed": True}
    if warnings:
        response["warnings"] = list(warnings)
    return _wrap(response)


def denied_review(
    uid: str, message: str, *, code: int = 403, warnings: Sequence[str] = ()
) -> dict[str, Any]:
    """A denial in the shape controller-runtime sends: metav1.Status with code and reason."""
    response: dict[str, Any] = {
        "uid": uid,
        "allowed": False,
        "status": {
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": _STATUS_REASONS.get(code, "InternalError"),
            "code": code,
        },
    }
    if warnings:
        response["warnings"] = list(warnings)
    return _wrap(response)


_STATUS_REASONS = {400: "BadRequest", 403: "Forbidden", 500: "InternalError"}


def _wrap(response: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": ADMISSION_API_VERSION, "kind": ADMISSION_KIND, "response": response}
