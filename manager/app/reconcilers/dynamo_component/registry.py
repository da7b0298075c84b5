"""Whether an image is already in its registry: one ``HEAD`` of its manifest, with the configured
credentials (basic, or a pull token when the registry answers with a bearer challenge).

One aiohttp session (a manager runnable, like the LoRA client), a connect and a total timeout on
every call, no redirects followed except the token realm's. The answer is ``exists`` True or
False, or None with the reason when the registry could not say (unreachable, 5xx, refused
credentials): the controller then reports the check as failed and retries, and never builds on
a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import aiohttp

from dynamo_operator.image_build import (
    MANIFEST_MEDIA_TYPES,
    BasicCredentials,
    ImageName,
    RegistryConfigError,
    manifest_url,
    parse_challenge,
    token_request,
)
from manager.runtime import ClientSessionRunnable

__all__ = ["HttpImageRegistry", "ImageCheck", "ImageRegistry"]

_DETAIL_BYTES = 200


@dataclass(frozen=True, slots=True)
class ImageCheck:
    exists: bool | None
    """None: the registry could not say (``message`` says why)."""
    message: str = ""


class ImageRegistry(Protocol):
    async def check(
        self, name: ImageName, *, secure: bool, credentials: BasicCredentials | None
    ) -> ImageCheck: ...


class HttpImageRegistry(ClientSessionRunnable):
    """``ImageRegistry`` over HTTP(S); see the module doc."""

    def __init__(self, *, request_timeout: float = 15.0, user_agent: str = "dynamo-operator"):
        super().__init__(
            connector=lambda: aiohttp.TCPConnector(limit=16, force_close=True),
            user_agent=user_agent,
        )
        self._timeout = aiohttp.ClientTimeout(total=request_timeout, connect=5.0)
        self._request_timeout = request_timeout

    async def check(
        self, name: ImageName, *, secure: bool, credentials: BasicCredentials | None
    ) -> ImageCheck:
        url = manifest_url(name, secure=secure)
        try:
            status, challenge = await self._head(url, None)
            if status == 401 and challenge:
                authorization = await self._authorization(challenge, name, credentials)
                if authorization is not None:
                    status, _ = await self._head(url, authorization)
        except TimeoutError:
            return ImageCheck(
                None, f"{name.api_host} did not answer within {self._request_timeout:g}s"
            )
        except (aiohttp.ClientError, OSError, RegistryConfigError) as error:
            return ImageCheck(None, f"{name.api_host}: {error or type(error).__name__}")
        if status == 200:
            return ImageCheck(True)
        if status == 404:
            return ImageCheck(False)
        if status in (401, 403):
            who = (
                "without credentials" if credentials is None else "with the configured credentials"
            )
            return ImageCheck(
                None, f"{name.api_host} refused the manifest request {who} (HTTP {status})"
            )
        return ImageCheck(None, f"{name.api_host} answered HTTP {status} for {url}")

    async def _head(self, url: str, authorization: str | None) -> tuple[int, str]:
        headers = {"Accept": ", ".join(MANIFEST_MEDIA_TYPES)}
        if authorization:
            headers["Authorization"] = authorization
        async with self.session.head(
            url, headers=headers, allow_redirects=False, timeout=self._timeout
        ) as response:
            return response.status, response.headers.get("WWW-Authenticate", "")

    async def _authorization(
        self, header: str, name: ImageName, credentials: BasicCredentials | None
    ) -> str | None:
        """The ``Authorization`` a 401's challenge asks for, or None when it cannot be met."""
        challenge = parse_challenge(header)
        if challenge.scheme == "basic":
            return credentials.header() if credentials else None
        if challenge.scheme != "bearer":
            raise RegistryConfigError(f"unsupported authentication scheme '{challenge.scheme}'")
        headers = {"Authorization": credentials.header()} if credentials else {}
        realm, query = token_request(challenge, name)
        async with self.session.get(
            realm, params=query, headers=headers, timeout=self._timeout
        ) as response:
            if response.status != 200:
                detail = (await response.content.read(_DETAIL_BYTES)).decode(errors="replace")
                raise RegistryConfigError(
                    f"token request answered HTTP {response.status}: {detail}"
                )
            body = await response.json(content_type=None)
        token = body.get("token") or body.get("access_token") if isinstance(body, dict) else None
        if not token:
            raise RegistryConfigError("the token answer holds no token")
        return f"Bearer {token}"
