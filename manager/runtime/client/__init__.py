"""The Kubernetes client: REST verbs over kr8s credentials, server-side apply with compare.

The HTTP transport is a seam (`Transport`); `AiohttpTransport` sends through aiohttp with kr8s's
credentials.
"""

from manager.runtime.client.aiohttp_transport import AiohttpTransport
from manager.runtime.client.apply import (
    find_difference,
    find_status_difference,
    needs_apply,
    prune_none,
    status_cleanup_patch,
    status_merge_patch,
    with_applied_digest,
)
from manager.runtime.client.availability import ApiAvailability
from manager.runtime.client.client import Client
from manager.runtime.client.errors import (
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
from manager.runtime.client.kind_registry import KindRegistry
from manager.runtime.client.rest import (
    PAGE_SIZE,
    ListPage,
    PropagationPolicy,
    RestClient,
    WatchEvent,
)
from manager.runtime.client.transport import (
    HttpResponse,
    StreamResponse,
    Transport,
    default_user_agent,
)

__all__ = [
    "PAGE_SIZE",
    "AiohttpTransport",
    "AlreadyExists",
    "ApiAvailability",
    "ApiError",
    "BadRequest",
    "Client",
    "Conflict",
    "Forbidden",
    "Gone",
    "HttpResponse",
    "Invalid",
    "KindNotFoundError",
    "KindRegistry",
    "KubeError",
    "ListPage",
    "NotFound",
    "PropagationPolicy",
    "RestClient",
    "ServerError",
    "StreamResponse",
    "TooManyRequests",
    "Transport",
    "TransportError",
    "Unauthorized",
    "UnsupportedMediaType",
    "WatchEvent",
    "default_user_agent",
    "find_difference",
    "find_status_difference",
    "needs_apply",
    "prune_none",
    "status_cleanup_patch",
    "status_merge_patch",
    "with_applied_digest",
]
