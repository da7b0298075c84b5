"""The Kubernetes client: REST verbs over kr8s credentials, cached reads, server-side apply."""

from manager.client.apply import (
    APPLIED_DIGEST_ANNOTATION,
    find_difference,
    needs_apply,
    with_applied_digest,
)
from manager.client.client import DEFAULT_FIELD_MANAGER, Client
from manager.client.errors import (
    AlreadyExists,
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    KindNotFoundError,
    KubeError,
    NotFound,
    ServerError,
    TooManyRequests,
    TransportError,
    Unauthorized,
    UnsupportedMediaType,
)
from manager.client.rest import ListPage, PropagationPolicy, RestClient, WatchEvent

__all__ = [
    "APPLIED_DIGEST_ANNOTATION",
    "DEFAULT_FIELD_MANAGER",
    "AlreadyExists",
    "ApiError",
    "BadRequest",
    "Client",
    "Conflict",
    "Forbidden",
    "Gone",
    "Invalid",
    "KindNotFoundError",
    "KubeError",
    "ListPage",
    "NotFound",
    "PropagationPolicy",
    "RestClient",
    "ServerError",
    "TooManyRequests",
    "TransportError",
    "Unauthorized",
    "UnsupportedMediaType",
    "WatchEvent",
    "find_difference",
    "needs_apply",
    "with_applied_digest",
]
