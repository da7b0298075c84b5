"""Errors of the Kubernetes client: one hierarchy, rooted at `KubeError`.

- `ApiError`: the API server answered with an error status. Subclasses follow the `reason` of the
  `Status` object (falling back on the HTTP code) so callers catch what they mean:
  `NotFound`, `AlreadyExists`, `Conflict`, `Gone` (resourceVersion too old: relist),
  `Invalid`, `BadRequest`, `Unauthorized`, `Forbidden`, `TooManyRequests` (with `retry_after`),
  `ServerError` (5xx), `UnsupportedMediaType`.
- `TransportError`: no answer at all (connection refused or reset, timeout, broken stream).
- `KindNotFoundError`: discovery does not list a kind the caller needs.

`AlreadyExists` and `Conflict` share the HTTP code 409 but are siblings on purpose: a caller
retrying optimistic-lock conflicts must not swallow a failed create.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

__all__ = [
    "AlreadyExists",
    "ApiError",
    "BadRequest",
    "Conflict",
    "Forbidden",
    "Gone",
    "Invalid",
    "KindNotFoundError",
    "KubeError",
    "NotFound",
    "ServerError",
    "TooManyRequests",
    "TransportError",
    "Unauthorized",
    "UnsupportedMediaType",
    "error_from_response",
    "error_from_status",
]


class KubeError(Exception):
    """Root of every error raised by `manager.runtime.client`."""


class KindNotFoundError(KubeError):
    """API discovery does not list the kind (its CRD is not installed, or the API is disabled)."""


class TransportError(KubeError):
    """The request got no (complete) answer: connection failure, timeout or broken stream."""


class ApiError(KubeError):
    """The API server answered with an error `Status`."""

    def __init__(self, code: int, reason: str, message: str, status: Mapping[str, Any]) -> None:
        super().__init__(f"{code} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.status = status


class BadRequest(ApiError):
    """400: the request itself is malformed."""


class Unauthorized(ApiError):
    """401: credentials missing or expired."""


class Forbidden(ApiError):
    """403: RBAC denies the verb, or the namespace is being terminated."""


class NotFound(ApiError):
    """404: the object (or the kind) does not exist."""


class Conflict(ApiError):
    """409: optimistic-lock failure (stale resourceVersion) or a field-manager conflict."""


class AlreadyExists(ApiError):
    """409 with reason AlreadyExists: create of an object that is already there."""


class Gone(ApiError):
    """410 (or reason Expired): the resourceVersion is compacted away; relist."""


class UnsupportedMediaType(ApiError):
    """415: e.g. a strategic-merge patch on a custom resource."""


class Invalid(ApiError):
    """422: the object fails validation; `status["details"]["causes"]` names the fields."""


class TooManyRequests(ApiError):
    """429: API Priority and Fairness rejected the request; retry after `retry_after` seconds."""

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        status: Mapping[str, Any],
        retry_after: float | None = None,
    ) -> None:
        super().__init__(code, reason, message, status)
        self.retry_after = retry_after


class ServerError(ApiError):
    """5xx: the server failed; retry with backoff."""


_BY_REASON: dict[str, type[ApiError]] = {
    "AlreadyExists": AlreadyExists,
    "Conflict": Conflict,
    "NotFound": NotFound,
    "Gone": Gone,
    "Expired": Gone,
    "Invalid": Invalid,
    "Forbidden": Forbidden,
    "Unauthorized": Unauthorized,
    "BadRequest": BadRequest,
    "TooManyRequests": TooManyRequests,
    "UnsupportedMediaType": UnsupportedMediaType,
}

_BY_CODE: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    415: UnsupportedMediaType,
    422: Invalid,
    429: TooManyRequests,
}


def error_from_status(
    status: Mapping[str, Any], *, http_code: int | None = None, retry_after: float | None = None
) -> ApiError:
    """Build the error for a `Status` object (a response body or a watch ERROR event)."""
    code = int(status.get("code") or http_code or 500)
    reason = str(status.get("reason") or "")
    message = str(status.get("message") or "")
    error_class = _BY_REASON.get(reason) or _BY_CODE.get(code)
    if error_class is None:
        error_class = ServerError if code >= 500 else ApiError
    if error_class is TooManyRequests:
        details = status.get("details") or {}
        if retry_after is None and isinstance(details, Mapping):
            seconds = details.get("retryAfterSeconds")
            retry_after = float(seconds) if seconds is not None else None
        return TooManyRequests(code, reason or "TooManyRequests", message, status, retry_after)
    return error_class(code, reason or error_class.__name__, message, status)


def error_from_response(
    http_code: int, body: bytes, headers: Mapping[str, str] | None = None
) -> ApiError:
    """Build the error for an HTTP error response whose body may or may not be a `Status`."""
    try:
        decoded = orjson.loads(body) if body else {}
    except orjson.JSONDecodeError:
        decoded = {}
    status: Mapping[str, Any] = decoded if isinstance(decoded, Mapping) else {}
    if not status.get("message"):
        text = body.decode("utf-8", "replace").strip()
        status = {**status, "message": text[:500] or f"HTTP {http_code}"}
    return error_from_status(
        {**status, "code": http_code},
        http_code=http_code,
        retry_after=_parse_retry_after(headers),
    )


def _parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    value = headers.get("Retry-After") or headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date; the apiserver only ever sends seconds
