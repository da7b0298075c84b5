"""Authentication and authorisation in front of `/metrics`: controller-runtime's
`filters.WithAuthenticationAndAuthorization`, done by the operator itself (no kube-rbac-proxy).

A request must carry `Authorization: Bearer <token>`; the API server says whose token it is
(TokenReview) and whether that user may use the request's verb (the HTTP method in lower case) on
its path as a non-resource URL (SubjectAccessReview): RBAC's
`nonResourceURLs: ["/metrics"], verbs: ["get"]`. The answers and their bodies are
controller-runtime's: 401 `Unauthorized` without a token or with one the API server does not
accept, 403 `Authorization denied for user <name>`, and 500 when a review could not be made
(the API server is down or refuses the operator's own request), with one log line.
"""

from __future__ import annotations

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from manager.runtime.logging import get_logger
from manager.runtime.metrics.errors import ReviewError
from manager.runtime.metrics.reviews import (
    DelegatedAuth,
)

__all__ = ["authentication_and_authorization", "bearer_token"]

log = get_logger(__name__)


def bearer_token(authorization: str) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, None when there is none."""
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        return None
    return token


def authentication_and_authorization(auth: DelegatedAuth) -> Middleware:
    """An aiohttp middleware that lets through only requests `auth` authenticates and allows."""

    @web.middleware
    async def authenticate_and_authorize(
        request: web.Request, handler: Handler
    ) -> web.StreamResponse:
        token = bearer_token(request.headers.get("Authorization", ""))
        if token is None:
            return web.Response(status=401, text="Unauthorized\n")
        try:
            user = await auth.authenticate(token)
        except ReviewError as error:
            log.error("metrics request not authenticated", error=str(error))
            return web.Response(status=500, text="Authentication failed\n")
        if user is None:
            return web.Response(status=401, text="Unauthorized\n")
        verb, path = request.method.lower(), request.path
        try:
            decision = await auth.authorize(user, verb=verb, path=path)
        except ReviewError as error:
            log.error("metrics request not authorized", user=user.name, error=str(error))
            return web.Response(status=500, text=f"Authorization for user {user.name} failed\n")
        if not decision.allowed:
            log.debug(
                "metrics request denied",
                user=user.name,
                verb=verb,
                path=path,
                reason=decision.reason,
            )
            return web.Response(status=403, text=f"Authorization denied for user {user.name}\n")
        return await handler(request)

    return authenticate_and_authorize
