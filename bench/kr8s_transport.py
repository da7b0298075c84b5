"""`Kr8sTransport`: the REST layer's `Transport` over kr8s's own httpx client (`Api.call_api`).

The operator sends through `AiohttpTransport`; this one exists so that `informer_sync.py` can
measure both on the same API server. It never lets kr8s recreate its session on 403 (kr8s does
that on any 401/403, which would cut every open watch whenever RBAC says no): it re-authenticates
on 401 only.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
from kr8s import APITimeoutError

from manager.runtime.client import (
    HttpResponse,
    StreamResponse,
    TransportError,
    default_user_agent,
)

__all__ = ["Kr8sTransport"]


def _split_path(path: str) -> tuple[str, str]:
    # kr8s joins `base` and `url` with "/" and would add a trailing slash to a lone base.
    base, _, leaf = path.rpartition("/")
    return base, leaf


class Kr8sTransport:
    """Requests through kr8s's own httpx client (`Api.call_api`)."""

    def __init__(self, api: Any, *, user_agent: str | None = None) -> None:
        self._api = api
        self.user_agent = user_agent or default_user_agent()

    @property
    def server(self) -> str:
        return str(self._api.auth.server)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
        request_timeout: float = 30.0,
    ) -> HttpResponse:
        base, leaf = _split_path(path)
        headers = {"User-Agent": self.user_agent}
        if content_type:
            headers["Content-Type"] = content_type
        for attempt in range(2):
            try:
                async with self._api.call_api(
                    method,
                    version="",
                    base=base,
                    url=leaf,
                    raise_for_status=False,
                    params=params,
                    content=body,
                    headers=headers,
                    timeout=httpx.Timeout(request_timeout),
                ) as response:
                    result = HttpResponse(response.status_code, response.content, response.headers)
            except (httpx.TransportError, APITimeoutError, OSError) as error:
                raise TransportError(f"{method} {path}: {error!r}") from error
            if result.status == 401 and attempt == 0:
                await self._reauthenticate()
                continue
            return result
        raise AssertionError("unreachable")

    @contextlib.asynccontextmanager
    async def stream(
        self, path: str, *, params: Mapping[str, str], connect_timeout: float = 10.0
    ) -> AsyncIterator[StreamResponse]:
        base, leaf = _split_path(path)
        timeout = httpx.Timeout(connect_timeout, read=None)
        try:
            async with self._api.call_api(
                "GET",
                version="",
                base=base,
                url=leaf,
                raise_for_status=False,
                stream=True,
                params=params,
                headers={"User-Agent": self.user_agent},
                timeout=timeout,
            ) as response:
                yield StreamResponse(
                    response.status_code, response.headers, _httpx_chunks(response)
                )
        except (httpx.TransportError, APITimeoutError, OSError) as error:
            raise TransportError(f"watch {path}: {error!r}") from error

    async def _reauthenticate(self) -> None:
        await self._api.auth.reauthenticate()
        await self._api._create_session()  # kr8s bakes the token into its client's headers

    async def aclose(self) -> None:
        """The httpx client belongs to the kr8s `Api`; nothing of ours to close."""


async def _httpx_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except (httpx.TransportError, OSError) as error:
        raise TransportError(f"stream broken: {error!r}") from error
