"""Who is asking and may they: TokenReview and SubjectAccessReview, delegated to the API server.

This is what controller-runtime's `filters.WithAuthenticationAndAuthorization` does for a
metrics endpoint (through the delegating authenticator and authorizer of `k8s.io/apiserver`), with
the same cache lifetimes: a token's review (authenticated or not) is kept 1 minute, an allowed
access 5 minutes, a denied one 30 seconds. A Prometheus scraping every 15 s therefore costs one
TokenReview a minute and one SubjectAccessReview every five. Answers the API server could not
give (it is down, times out, or refuses the operator's own request) are never cached and raise
`ReviewError`, so the next request asks again. Concurrent requests needing the same answer share
one review.

Tokens are kept only as their SHA-256 digest, never in clear.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio

from manager.runtime.client import KubeError, RestClient
from manager.runtime.clock import Clock
from manager.runtime.kinds import ResourceKind
from manager.runtime.metrics.errors import ReviewError
from manager.runtime.metrics.review_cache import ReviewCache, SharedReviews

__all__ = [
    "SUBJECT_ACCESS_REVIEW",
    "TOKEN_REVIEW",
    "Decision",
    "DelegatedAuth",
    "ReviewTimes",
    "UserInfo",
]

TOKEN_REVIEW = ResourceKind("authentication.k8s.io/v1", "TokenReview", "tokenreviews", False)
SUBJECT_ACCESS_REVIEW = ResourceKind(
    "authorization.k8s.io/v1", "SubjectAccessReview", "subjectaccessreviews", False
)
FIELD_MANAGER = "metrics-auth"


@dataclass(frozen=True, slots=True)
class ReviewTimes:
    """How long answers are kept (controller-runtime's values) and how long one may take."""

    authenticated: float = 60.0
    allowed: float = 300.0
    denied: float = 30.0
    timeout: float = 10.0
    max_entries: int = 1024


@dataclass(frozen=True, slots=True)
class UserInfo:
    """The authenticated user of a TokenReview, hashable so it can key the access cache."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def from_review(cls, user: Mapping[str, Any]) -> UserInfo:
        extra = user.get("extra") or {}
        return cls(
            name=str(user.get("username") or ""),
            uid=str(user.get("uid") or ""),
            groups=tuple(user.get("groups") or ()),
            extra=tuple(sorted((key, tuple(values or ())) for key, values in extra.items())),
        )


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    reason: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class _TokenAnswer:
    user: UserInfo | None  # None: the API server does not accept the token


_Access = tuple[UserInfo, str, str]


class DelegatedAuth:
    """Authenticates bearer tokens and authorises non-resource requests through `rest`."""

    def __init__(
        self, rest: RestClient, *, times: ReviewTimes | None = None, clock: Clock | None = None
    ) -> None:
        self._rest = rest
        self.times = times or ReviewTimes()
        self._tokens: ReviewCache[str, _TokenAnswer] = ReviewCache(
            self.times.max_entries, clock=clock
        )
        self._decisions: ReviewCache[_Access, Decision] = ReviewCache(
            self.times.max_entries, clock=clock
        )
        self._flights = SharedReviews(ReviewError)

    async def authenticate(self, token: str) -> UserInfo | None:
        """The user the token belongs to, or None when the API server does not accept it."""
        key = hashlib.sha256(token.encode()).hexdigest()
        answer = await self._flights.share(
            key, lambda: self._tokens.get(key), partial(self._review_token, key, token)
        )
        return answer.user

    async def authorize(self, user: UserInfo, *, verb: str, path: str) -> Decision:
        """Whether `user` may `verb` the non-resource URL `path` (RBAC `nonResourceURLs`)."""
        key = (user, verb, path)
        return await self._flights.share(
            key, lambda: self._decisions.get(key), partial(self._review_access, key)
        )

    async def _review_token(self, key: str, token: str) -> _TokenAnswer:
        status = await self._review(
            TOKEN_REVIEW,
            {
                "apiVersion": TOKEN_REVIEW.api_version,
                "kind": "TokenReview",
                "spec": {"token": token},
            },
        )
        user = (
            UserInfo.from_review(status.get("user") or {}) if status.get("authenticated") else None
        )
        answer = _TokenAnswer(user)
        self._tokens.put(key, answer, self.times.authenticated)
        return answer

    async def _review_access(self, key: _Access) -> Decision:
        user, verb, path = key
        spec: dict[str, Any] = {
            "user": user.name,
            "groups": list(user.groups),
            "nonResourceAttributes": {"path": path, "verb": verb},
        }
        if user.uid:
            spec["uid"] = user.uid
        if user.extra:
            spec["extra"] = {name: list(values) for name, values in user.extra}
        status = await self._review(
            SUBJECT_ACCESS_REVIEW,
            {
                "apiVersion": SUBJECT_ACCESS_REVIEW.api_version,
                "kind": "SubjectAccessReview",
                "spec": spec,
            },
        )
        allowed = bool(status.get("allowed")) and not status.get("denied")
        decision = Decision(allowed, str(status.get("reason") or ""))
        self._decisions.put(key, decision, self.times.allowed if allowed else self.times.denied)
        return decision

    async def _review(self, kind: ResourceKind, review: Mapping[str, Any]) -> dict[str, Any]:
        try:
            with anyio.fail_after(self.times.timeout):
                answer = await self._rest.create(kind, review, field_manager=FIELD_MANAGER)
        except (KubeError, TimeoutError) as error:
            raise ReviewError(f"{kind.kind} failed: {error or type(error).__name__}") from error
        status: dict[str, Any] = answer.get("status") or {}
        return status
