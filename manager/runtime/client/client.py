"""The client reconcilers write with; they read from the cache (`cache.CacheReader`).

Every write goes to the API server through `RestClient`, under the field manager of the
`Identity` the composition root gives (a call may name another). The kind of an object is looked
up in a `KindRegistry` without I/O: the composition root resolves the kinds it writes (its CRDs)
through discovery at start-up; built-in kinds are always there.

- `apply` / `apply_status`: server-side apply with `force` (controllers own what they apply);
- `apply_if_changed`: the same, stamped with a digest of the desired object under
  `identity.applied_digest_annotation` (`apply.with_applied_digest`) and skipped when the live
  object already agrees on every field the stamped one sets: the way to zero writes at steady
  state without leaving behind fields the controller stopped setting. An absent object is
  created with POST instead, under `identity.create_field_manager`, whose fields the apply
  manager adopts before it first changes them (`created.py`). Objects carrying `status` are
  refused: the main resource ignores it, so the compare would never settle.
- `apply_status_if_changed`: compare the whole status, then write it once (a server-side apply
  to `/status`, or a merge patch when something must be removed);
- `create`, `update_status` (PUT, resourceVersion-guarded), `merge_patch`, `delete`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from manager.runtime.client.apply import (
    find_difference,
    find_status_difference,
    needs_apply,
    prune_none,
    status_cleanup_patch,
    status_merge_patch,
    with_applied_digest,
)
from manager.runtime.client.created import adoption_patch
from manager.runtime.client.errors import AlreadyExists, Conflict, Invalid, NotFound
from manager.runtime.client.kind_registry import KindRegistry
from manager.runtime.client.rest import PropagationPolicy, RestClient
from manager.runtime.client.written import WrittenStatuses, status_digest
from manager.runtime.identity import Identity
from manager.runtime.kinds import ResourceKind
from manager.runtime.logging import get_logger

__all__ = ["Client"]

log = get_logger(__name__)


class Client:
    def __init__(self, api: Any, identity: Identity, *, kinds: KindRegistry | None = None) -> None:
        """`api`: a kr8s `Api` or a `RestClient` (e.g. one whose transport sends
        `identity.user_agent`); `kinds`: the registry discovery filled (built-in kinds only
        when None)."""
        self.rest = RestClient.for_api(api)
        self.identity = identity
        self.kinds = kinds if kinds is not None else KindRegistry()
        self._written_statuses = WrittenStatuses()

    def kind_of(self, obj: Mapping[str, Any]) -> ResourceKind:
        """The `ResourceKind` of an object from its `apiVersion` and `kind`;
        `KindNotFoundError` when nobody resolved it at start-up."""
        return self.kinds.kind_of(obj)

    async def apply(
        self,
        obj: Mapping[str, Any],
        field_manager: str | None = None,
        force: bool = True,
    ) -> dict[str, Any]:
        return await self.rest.apply(
            self.kind_of(obj),
            obj,
            field_manager=field_manager or self.identity.field_manager,
            force=force,
        )

    async def apply_status(
        self,
        obj: Mapping[str, Any],
        field_manager: str | None = None,
        force: bool = True,
    ) -> dict[str, Any]:
        """Server-side apply to the status subresource (`obj` carries identity + `status`)."""
        return await self.rest.apply(
            self.kind_of(obj),
            obj,
            field_manager=field_manager or self.identity.field_manager,
            force=force,
            subresource="status",
        )

    async def apply_if_changed(
        self,
        desired: Mapping[str, Any],
        live: Mapping[str, Any] | None,
        field_manager: str | None = None,
        *,
        owners: Sequence[Mapping[str, Any]] | None = None,
    ) -> dict[str, Any] | None:
        """Make `desired` true of the object unless `live` already matches it: the server's
        answer when a write was made (fresher than the cache, which lags it), None when nothing
        was sent.

        An object `live` says is absent is created with POST (`created.py`), or applied when it
        exists after all; one that differs is applied, the fields of its POST adopted first.
        `owners`: owner references written with `desired` but left out of its digest and of the
        compare (an object several owners share gains them one at a time: `add_owner`). An
        object whose kind's immutable fields differ is deleted first, then created again."""
        if "status" in desired:
            raise ValueError(
                f"apply_if_changed got a {desired.get('kind')} with a status: the main resource "
                "ignores status; write it with apply_status_if_changed"
            )
        desired = with_applied_digest(desired, self.identity.applied_digest_annotation)
        if live is None:
            _log_write("creating", desired, "(absent)")
            try:
                return await self.create(
                    _with_owners(prune_none(desired), owners),
                    field_manager=self.identity.create_field_manager,
                )
            except AlreadyExists:  # the cache has not seen it yet, or does not select it
                _log_write("applying", desired, "(exists)")
        else:
            difference = find_difference(desired, live)
            if difference is None:
                return None
            _log_write("applying", desired, difference)
            if not await self._delete_if_immutable_changed(desired, live):
                await self._adopt_created_fields(live)  # first: it reads where the entry is
                await self._clear_server_defaults(desired, live)
        return await self.apply(_with_owners(desired, owners), field_manager=field_manager)

    def needs_apply(self, desired: Mapping[str, Any], live: Mapping[str, Any] | None) -> bool:
        """Whether `apply_if_changed(desired, live)` would write."""
        if live is None:
            return True  # created: no digest to take
        annotation = self.identity.applied_digest_annotation
        return needs_apply(with_applied_digest(desired, annotation), live)

    async def _delete_if_immutable_changed(
        self, desired: Mapping[str, Any], live: Mapping[str, Any]
    ) -> bool:
        """Delete `live` when `desired` changes one of its kind's immutable fields: the apply
        would be refused as invalid for ever, so it creates the object again instead."""
        kind = self.kind_of(desired)
        changed = [name for name in kind.immutable if desired.get(name) != live.get(name)]
        if changed:
            _log_write("replacing", desired, changed[0])
            await self.delete(kind, *_names(live))
        return bool(changed)

    async def _adopt_created_fields(self, live: Mapping[str, Any]) -> None:
        """Make the entry of this client's POST in `live`'s managedFields its apply manager's,
        so the apply can remove what it stops setting (`created.py`)."""
        patch = adoption_patch(
            live["metadata"].get("managedFields") or (),
            creator=self.identity.create_field_manager,
            applier=self.identity.field_manager,
        )
        if patch is None:
            return
        _log_write("adopting the created fields of", live, "metadata.managedFields")
        try:
            await self.rest.json_patch(
                self.kind_of(live), *_names(live), patch, field_manager=self.identity.field_manager
            )
        except Invalid as error:  # a `test` failed: the cache is behind the entries
            raise Conflict(
                409, "Conflict", "managedFields changed since the cache read them", error.status
            ) from error

    async def _clear_server_defaults(
        self, desired: Mapping[str, Any], live: Mapping[str, Any]
    ) -> None:
        """Clear each server-defaulted field `live` has and `desired` leaves out, with a merge
        patch carrying `desired`'s value of its parent: the apply alone cannot remove a field no
        manager owns, and would be refused for ever when its new siblings forbid it."""
        kind = self.kind_of(desired)
        for path in kind.server_defaulted:
            *parents, name = path
            wanted, held = _at(desired, parents), _at(live, parents)
            if not isinstance(wanted, Mapping) or name in wanted:
                continue
            if not isinstance(held, Mapping) or name not in held:
                continue
            patch: dict[str, Any] = {**wanted, name: None}
            for key in reversed(parents):
                patch = {key: patch}
            _log_write("clearing a server default of", desired, ".".join(path))
            await self.rest.merge_patch(
                kind, *_names(live), patch, field_manager=self.identity.field_manager
            )

    async def add_owner(self, live: Mapping[str, Any], owner: Mapping[str, Any]) -> dict[str, Any]:
        """Add one owner reference to `live`'s, keeping the others whatever the cache knew of
        them (a strategic merge patch: the server merges ownerReferences by uid)."""
        _log_write("adding an owner", live, "metadata.ownerReferences")
        return await self.rest.merge_patch(
            self.kind_of(live),
            *_names(live),
            {"metadata": {"ownerReferences": [dict(owner)]}},
            field_manager=self.identity.field_manager,
            strategic=True,
        )

    async def apply_status_if_changed(
        self, desired_status: Mapping[str, Any], live: Mapping[str, Any]
    ) -> bool:
        """Make `live`'s whole status equal `desired_status`; True when a write was made.

        The operator owns all of the status, so a key only `live` has is a difference, and
        `None` means absent. Nothing is sent when the cached `live` already agrees. Otherwise one
        write, under the identity's field manager:

        - nothing to remove: a server-side apply to `/status` (forced), the body carrying only
          the object's names and the status (never `spec`, which the server keeps);
        - something to remove: a JSON merge patch to `/status` from `live`'s status to the
          desired one. An apply removes only the fields this field manager alone owns: a field
          another manager also set (an earlier PUT, a previous operator version, the same
          value applied by both) would stay, and half of a removed condition fails validation.

        When the answer still holds keys the desired status lacks (the cache was behind the
        server), a second merge patch removes them.

        The cache lags the client's own writes: right after a status write, `live` may still hold
        the status from before it. Comparing with that could skip a write the server needs (the
        desired status equals the old one but not the one just written), so a digest of the
        status this client last wrote is remembered until the cache has caught up with it: while
        the cache is behind, a desired status equal to that one needs no write and any other
        does. The write is not guarded by the object's
        uid (the server ignores metadata sent to `/status`): a status computed for a deleted
        object could land on a new one of the same name, whose own reconcile then corrects it.
        """
        live_status = live.get("status") or {}
        pruned = prune_none(desired_status)
        written_since = self._written_statuses.written_since(live)
        if written_since is None:
            difference = find_status_difference(desired_status, live_status)
        elif written_since == status_digest(pruned):
            difference = None  # what this client wrote last, which the cache has not seen yet
        else:
            difference = "(other than the status written since the cache read it)"
        if difference is None:
            return False
        _log_write("writing status", live, difference)
        desired_status = pruned
        if status_cleanup_patch(desired_status, live_status):
            written = await self._merge_patch_status(
                live, status_merge_patch(desired_status, live_status)
            )
        else:
            written = await self.apply_status(_status_body(live, desired_status))
        if leftovers := status_cleanup_patch(desired_status, written.get("status") or {}):
            _log_write("removing status fields the cache had not seen", live, str(leftovers))
            written = await self._merge_patch_status(live, leftovers)
        self._written_statuses.remember(written, desired_status)
        if (left := find_status_difference(desired_status, written.get("status"))) is not None:
            metadata = live["metadata"]
            log.warning(
                "status differs from the desired status after writing it (not in the schema?)",
                kind=live["kind"],
                namespace=metadata.get("namespace"),
                name=metadata["name"],
                field=left,
            )
        return True

    async def _merge_patch_status(
        self, live: Mapping[str, Any], status_patch: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await self.merge_patch(
            self.kind_of(live),
            *_names(live),
            {"status": status_patch},
            subresource="status",
        )

    async def create(
        self, obj: Mapping[str, Any], field_manager: str | None = None
    ) -> dict[str, Any]:
        return await self.rest.create(
            self.kind_of(obj),
            obj,
            field_manager=field_manager or self.identity.field_manager,
        )

    async def update_status(
        self, obj: Mapping[str, Any], field_manager: str | None = None
    ) -> dict[str, Any]:
        """PUT the status subresource; `Conflict` when `metadata.resourceVersion` is stale."""
        return await self.rest.replace(
            self.kind_of(obj),
            obj,
            field_manager=field_manager or self.identity.field_manager,
            subresource="status",
        )

    async def merge_patch(
        self,
        kind: ResourceKind,
        namespace: str | None,
        name: str,
        patch: Mapping[str, Any],
        *,
        subresource: str | None = None,
        field_manager: str | None = None,
    ) -> dict[str, Any]:
        return await self.rest.merge_patch(
            kind,
            namespace,
            name,
            patch,
            field_manager=field_manager or self.identity.field_manager,
            subresource=subresource,
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


def _status_body(live: Mapping[str, Any], status: Mapping[str, Any]) -> dict[str, Any]:
    metadata = live["metadata"]
    names = {k: metadata[k] for k in ("name", "namespace") if metadata.get(k)}
    return {
        "apiVersion": live["apiVersion"],
        "kind": live["kind"],
        "metadata": names,
        "status": status,
    }


def _with_owners(
    obj: Mapping[str, Any], owners: Sequence[Mapping[str, Any]] | None
) -> Mapping[str, Any]:
    if owners is None:
        return obj
    return {**obj, "metadata": {**obj["metadata"], "ownerReferences": owners}}


def _names(obj: Mapping[str, Any]) -> tuple[str | None, str]:
    metadata = obj["metadata"]
    return metadata.get("namespace"), metadata["name"]


def _log_write(message: str, obj: Mapping[str, Any], difference: str) -> None:
    metadata = obj.get("metadata", {})
    log.debug(
        message,
        kind=obj.get("kind"),
        namespace=metadata.get("namespace"),
        name=metadata.get("name"),
        field=difference,
    )


def _at(obj: Mapping[str, Any], path: Sequence[str]) -> Any:
    """The value at `path` in nested mappings, or None."""
    value: Any = obj
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value
