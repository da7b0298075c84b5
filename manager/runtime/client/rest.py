"""Typed requests to the API server: the one place that builds URLs, decodes JSON, maps error
statuses to `errors.ApiError` and records the `rest_client_*` metrics.

Everything else (cache, client, leader election, events) talks to Kubernetes through a
`RestClient`; one is shared per kr8s `Api` object (`RestClient.for_api`).
"""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import orjson

from manager.runtime.client import metrics
from manager.runtime.client.aiohttp_transport import AiohttpTransport
from manager.runtime.client.availability import ApiAvailability
from manager.runtime.client.errors import (
    Gone,
    TooManyRequests,
    TransportError,
    error_from_response,
    error_from_status,
)
from manager.runtime.client.transport import Transport
from manager.runtime.kinds import ResourceKind

__all__ = ["PAGE_SIZE", "ListPage", "PropagationPolicy", "RestClient", "WatchEvent"]

PAGE_SIZE = 500  # client-go's pager default
MAX_429_RETRIES = 3
MAX_RETRY_AFTER = 10.0

PropagationPolicy = Literal["Background", "Foreground", "Orphan"]
WatchEventType = Literal["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]

APPLY_CONTENT_TYPE = "application/apply-patch+yaml"  # JSON is valid YAML
MERGE_PATCH_CONTENT_TYPE = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH_CONTENT_TYPE = "application/strategic-merge-patch+json"
JSON_PATCH_CONTENT_TYPE = "application/json-patch+json"
JSON_CONTENT_TYPE = "application/json"


@dataclass(frozen=True, slots=True)
class ListPage:
    items: list[dict[str, Any]]
    resource_version: str
    continue_token: str | None
    first: bool = False
    """The first page of a list (asked for without a continue token)."""


@dataclass(frozen=True, slots=True)
class WatchEvent:
    type: WatchEventType
    object: dict[str, Any]


_shared: weakref.WeakKeyDictionary[Any, RestClient] = weakref.WeakKeyDictionary()


class RestClient:
    """Kubernetes REST verbs over a `Transport`, returning plain dicts."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.host = metrics.host_label(transport.server)
        self.availability = ApiAvailability(self.is_ready)

    @classmethod
    def for_api(cls, api: Any) -> RestClient:
        """The `RestClient` shared by everything built on the kr8s `api` (one connection pool)."""
        if isinstance(api, RestClient):
            return api
        client = _shared.get(api)
        if client is None:
            client = _shared[api] = cls(AiohttpTransport(api))
        return client

    async def get(self, kind: ResourceKind, namespace: str | None, name: str) -> dict[str, Any]:
        return await self._call("GET", kind.object_path(namespace, name))

    async def get_path(self, path: str) -> dict[str, Any]:
        """GET a path that is not an object (discovery documents such as `/apis/apps/v1`)."""
        return await self._call("GET", path)

    async def list_page(
        self,
        kind: ResourceKind,
        namespace: str | None,
        *,
        limit: int = PAGE_SIZE,
        continue_token: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> ListPage:
        params = {"limit": str(limit)}
        if continue_token:
            params["continue"] = continue_token
        if label_selector:
            params["labelSelector"] = label_selector
        if field_selector:
            params["fieldSelector"] = field_selector
        body = await self._call("GET", kind.collection_path(namespace), params=params)
        list_meta = body.get("metadata") or {}
        return ListPage(
            items=body.get("items") or [],
            resource_version=str(list_meta.get("resourceVersion", "")),
            continue_token=list_meta.get("continue") or None,
            first=not continue_token,
        )

    async def list_pages(
        self,
        kind: ResourceKind,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        limit: int = PAGE_SIZE,
    ) -> AsyncIterator[ListPage]:
        """The pages of one list, in order, each handed over before the next is asked for.

        A continue token that expires mid-way (410) starts the list again from its first page
        (`ListPage.first`): the pages of one list are one snapshot, so what a consumer took from
        the abandoned attempt is superseded by the new one, never mixed with it.
        """
        while True:
            token: str | None = None
            try:
                while True:
                    page = await self.list_page(
                        kind,
                        namespace,
                        limit=limit,
                        continue_token=token,
                        label_selector=label_selector,
                        field_selector=field_selector,
                    )
                    token = page.continue_token
                    yield page
                    del page  # not held while the next page is read and decoded
                    if token is None:
                        return
            except Gone:
                if token is None:
                    raise  # the first page itself failed: the resourceVersion, not the token

    async def list_all(
        self,
        kind: ResourceKind,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        limit: int = PAGE_SIZE,
    ) -> tuple[list[dict[str, Any]], str]:
        """Every item, page by page, and the resourceVersion of the list as a whole."""
        items: list[dict[str, Any]] = []
        resource_version = ""
        async for page in self.list_pages(
            kind,
            namespace,
            label_selector=label_selector,
            field_selector=field_selector,
            limit=limit,
        ):
            if page.first:
                items = []
            items.extend(page.items)
            resource_version = page.resource_version
        return items, resource_version

    @contextlib.asynccontextmanager
    async def watch(
        self,
        kind: ResourceKind,
        namespace: str | None,
        *,
        resource_version: str,
        timeout_seconds: int,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> AsyncIterator[AsyncIterator[WatchEvent]]:
        """Open a watch; the yielded iterator raises `ApiError` for an in-stream ERROR event."""
        params = {
            "watch": "true",
            "resourceVersion": resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(timeout_seconds),
        }
        if label_selector:
            params["labelSelector"] = label_selector
        if field_selector:
            params["fieldSelector"] = field_selector
        path = kind.collection_path(namespace)
        started = time.monotonic()
        try:
            async with self.transport.stream(path, params=params) as response:
                metrics.record_request(
                    "GET", self.host, response.status, time.monotonic() - started
                )
                if response.status >= 400:
                    body = await response.read()
                    raise error_from_response(response.status, body, response.headers)
                yield _decode_events(response.lines())
        except TransportError:  # not opened, or broken while open
            self.availability.lost()
            raise

    async def create(
        self, kind: ResourceKind, obj: Mapping[str, Any], *, field_manager: str
    ) -> dict[str, Any]:
        namespace = obj.get("metadata", {}).get("namespace")
        return await self._call(
            "POST",
            kind.collection_path(namespace),
            params={"fieldManager": field_manager},
            body=orjson.dumps(obj),
            content_type=JSON_CONTENT_TYPE,
        )

    async def replace(
        self,
        kind: ResourceKind,
        obj: Mapping[str, Any],
        *,
        field_manager: str,
        subresource: str | None = None,
    ) -> dict[str, Any]:
        """PUT; guarded by `metadata.resourceVersion` when the object carries one."""
        metadata = obj["metadata"]
        return await self._call(
            "PUT",
            kind.object_path(metadata.get("namespace"), metadata["name"], subresource),
            params={"fieldManager": field_manager},
            body=orjson.dumps(obj),
            content_type=JSON_CONTENT_TYPE,
        )

    async def apply(
        self,
        kind: ResourceKind,
        obj: Mapping[str, Any],
        *,
        field_manager: str,
        force: bool = True,
        subresource: str | None = None,
    ) -> dict[str, Any]:
        """Server-side apply of `obj`, the complete intent of `field_manager`."""
        metadata = obj["metadata"]
        params = {"fieldManager": field_manager}
        if force:
            params["force"] = "true"
        return await self._call(
            "PATCH",
            kind.object_path(metadata.get("namespace"), metadata["name"], subresource),
            params=params,
            body=orjson.dumps(obj),
            content_type=APPLY_CONTENT_TYPE,
        )

    async def merge_patch(
        self,
        kind: ResourceKind,
        namespace: str | None,
        name: str,
        patch: Mapping[str, Any],
        *,
        field_manager: str,
        subresource: str | None = None,
        strategic: bool = False,
    ) -> dict[str, Any]:
        """RFC 7386 merge patch; `strategic`: Kubernetes' strategic merge patch instead (built-in
        kinds only), which merges lists with a merge key (ownerReferences by uid) instead of
        replacing them."""
        return await self._call(
            "PATCH",
            kind.object_path(namespace, name, subresource),
            params={"fieldManager": field_manager},
            body=orjson.dumps(patch),
            content_type=STRATEGIC_MERGE_PATCH_CONTENT_TYPE
            if strategic
            else MERGE_PATCH_CONTENT_TYPE,
        )

    async def json_patch(
        self,
        kind: ResourceKind,
        namespace: str | None,
        name: str,
        operations: list[dict[str, Any]],
        *,
        field_manager: str,
    ) -> dict[str, Any]:
        """RFC 6902 patch: the operations apply in order and all or none, so `test` operations
        guard the others (a failed test fails the whole patch with 422 `Invalid`)."""
        return await self._call(
            "PATCH",
            kind.object_path(namespace, name),
            params={"fieldManager": field_manager},
            body=orjson.dumps(operations),
            content_type=JSON_PATCH_CONTENT_TYPE,
        )

    async def delete(
        self,
        kind: ResourceKind,
        namespace: str | None,
        name: str,
        *,
        propagation_policy: PropagationPolicy = "Background",
        preconditions: Mapping[str, str] | None = None,
    ) -> None:
        options: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "DeleteOptions",
            "propagationPolicy": propagation_policy,
        }
        if preconditions:
            options["preconditions"] = dict(preconditions)
        await self._call(
            "DELETE",
            kind.object_path(namespace, name),
            body=orjson.dumps(options),
            content_type=JSON_CONTENT_TYPE,
        )

    async def is_ready(self) -> bool:
        """Whether `/readyz` answers 200 (every cluster's default RBAC lets anyone read it; an
        identity that may not never sees the server back, and waits out its own backoff)."""
        try:
            response = await self.transport.request("GET", "/readyz", request_timeout=5.0)
        except TransportError:
            return False
        return response.status == 200

    async def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
    ) -> dict[str, Any]:
        """One request, retried only on 429 (the server guarantees it did nothing)."""
        for attempt in range(MAX_429_RETRIES + 1):
            started = time.monotonic()
            try:
                response = await self.transport.request(
                    method, path, params=params, body=body, content_type=content_type
                )
            except TransportError:
                metrics.record_request(method, self.host, None, time.monotonic() - started)
                self.availability.lost()
                raise
            metrics.record_request(method, self.host, response.status, time.monotonic() - started)
            if response.status < 400:
                decoded: dict[str, Any] = orjson.loads(response.body) if response.body else {}
                return decoded
            error = error_from_response(response.status, response.body, response.headers)
            if not isinstance(error, TooManyRequests) or attempt == MAX_429_RETRIES:
                raise error
            await anyio.sleep(min(error.retry_after or 1.0, MAX_RETRY_AFTER))
        raise AssertionError("unreachable")


async def _decode_events(lines: AsyncIterator[bytes]) -> AsyncIterator[WatchEvent]:
    async for line in lines:
        event = orjson.loads(line)
        event_type = event.get("type")
        obj = event.get("object") or {}
        if event_type == "ERROR":
            raise error_from_status(obj)
        if event_type in ("ADDED", "MODIFIED", "DELETED", "BOOKMARK"):
            yield WatchEvent(event_type, obj)
