"""The client reconcilers use: reads from the cache, writes to the API server.

Reads (`get`, `list`) never leave the process: they come from the cache's informer for the kind
(created on first use, so the first read of a new kind waits for its initial list) and are deep
copies, so a reconciler may mutate what it reads. Writes go through `RestClient`:

- `apply` / `apply_status`: server-side apply with field manager `dynamo-operator` and `force`
  (controllers own what they apply);
- `apply_if_changed`: the same, stamped with a digest of the desired object
  (`apply.with_applied_digest`) and skipped when the live object already agrees on every field
  the stamped one sets: the way to zero writes at steady state without leaving behind fields the
  controller stopped setting;
- `create`, `update_status` (PUT, resourceVersion-guarded), `merge_patch`, `delete`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog

from manager.client.apply import APPLIED_DIGEST_ANNOTATION, find_difference, with_applied_digest
from manager.client.errors import NotFound
from manager.client.rest import PropagationPolicy, RestClient
from manager.kinds import ResourceKind

if TYPE_CHECKING:
    from manager.cache import Cache

__all__ = ["DEFAULT_FIELD_MANAGER", "Client"]

DEFAULT_FIELD_MANAGER = "dynamo-operator"

log = structlog.get_logger("manager.client")


class Client:
    def __init__(
        self, api: Any, cache: Cache, *, applied_digest_annotation: str = APPLIED_DIGEST_ANNOTATION
    ) -> None:
        self.api = api
        self.cache = cache
        self.rest = RestClient.for_api(api)
        self.applied_digest_annotation = applied_digest_annotation

    async def kind_of(self, obj: Mapping[str, Any]) -> ResourceKind:
        """The `ResourceKind` of an object from its `apiVersion` and `kind` (discovery, cached)."""
        from manager.discovery import Discovery  # the lead's interim wiring; see KindRegistry

        if not hasattr(self, "_discovery"):
            self._discovery = Discovery(self.rest)
        return await self._discovery.resolve(obj["apiVersion"], obj["kind"])

    # Reads, from the cache -----------------------------------------------------------------

    async def get(self, kind: ResourceKind, namespace: str | None, name: str) -> dict[str, Any]:
        """A copy of the cached object; `NotFound` when the cache does not hold it."""
        informer = self.cache.get_informer(kind)
        await informer.wait_for_sync()
        obj = informer.store.get(namespace if kind.namespaced else None, name)
        if obj is None:
            raise NotFound(404, "NotFound", f"{kind.plural} {name!r} not found", {})
        return copy.deepcopy(obj)

    async def list(
        self,
        kind: ResourceKind,
        namespace: str | None = None,
        *,
        label_selector: str | Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        informer = self.cache.get_informer(kind)
        await informer.wait_for_sync()
        found = informer.store.list(namespace, label_selector)
        return [copy.deepcopy(obj) for obj in found]

    # Writes, to the API server -------------------------------------------------------------

    async def apply(
        self,
        obj: Mapping[str, Any],
        field_manager: str = DEFAULT_FIELD_MANAGER,
        force: bool = True,
    ) -> dict[str, Any]:
        return await self.rest.apply(
            await self.kind_of(obj), obj, field_manager=field_manager, force=force
        )

    async def apply_status(
        self,
        obj: Mapping[str, Any],
        field_manager: str = DEFAULT_FIELD_MANAGER,
        force: bool = True,
    ) -> dict[str, Any]:
        """Server-side apply to the status subresource (`obj` carries identity + `status`)."""
        return await self.rest.apply(
            await self.kind_of(obj),
            obj,
            field_manager=field_manager,
            force=force,
            subresource="status",
        )

    async def apply_if_changed(
        self,
        desired: Mapping[str, Any],
        live: Mapping[str, Any] | None,
        field_manager: str = DEFAULT_FIELD_MANAGER,
    ) -> bool:
        """Apply `desired` unless `live` already matches it; True when a write was made."""
        desired = with_applied_digest(desired, self.applied_digest_annotation)
        difference = "(absent)" if live is None else find_difference(desired, live)
        if difference is None:
            return False
        metadata = desired.get("metadata", {})
        log.debug(
            "applying",
            kind=desired.get("kind"),
            namespace=metadata.get("namespace"),
            name=metadata.get("name"),
            field=difference,
        )
        await self.apply(desired, field_manager=field_manager)
        return True

    async def create(
        self, obj: Mapping[str, Any], field_manager: str = DEFAULT_FIELD_MANAGER
    ) -> dict[str, Any]:
        return await self.rest.create(await self.kind_of(obj), obj, field_manager=field_manager)

    async def update_status(
        self, obj: Mapping[str, Any], field_manager: str = DEFAULT_FIELD_MANAGER
    ) -> dict[str, Any]:
        """PUT the status subresource; `Conflict` when `metadata.resourceVersion` is stale."""
        return await self.rest.replace(
            await self.kind_of(obj), obj, field_manager=field_manager, subresource="status"
        )

    async def merge_patch(
        self,
        kind: ResourceKind,
        namespace: str | None,
        name: str,
        patch: Mapping[str, Any],
        *,
        subresource: str | None = None,
        field_manager: str = DEFAULT_FIELD_MANAGER,
    ) -> dict[str, Any]:
        return await self.rest.merge_patch(
            kind, namespace, name, patch, field_manager=field_manager, subresource=subresource
        )

    async def delete(
        self,
        kind: ResourceKind,
        namespace: str | None,
        name: str,
        propagation_policy: PropagationPolicy = "Background",
    ) -> bool:
        """Delete; False when the object was already gone (deleting is idempotent)."""
        try:
            await self.rest.delete(kind, namespace, name, propagation_policy=propagation_policy)
        except NotFound:
            return False
        return True
