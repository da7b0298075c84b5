"""Objects stored at a CRD's earlier storage version moved to its current one.

When a CRD's storage version changes, the API server stores an object at the new version only
when something next writes it: the others stay encoded at the old version, converted on every
read (through the conversion webhook), and the CRD's `status.storedVersions` keeps naming the
old version, which can then never be dropped from the CRD. `StorageVersionMigration` does for
the CRDs it is given what kube-storage-version-migrator does: for each CRD whose storedVersions
names another version than its storage version, it lists every object at the storage version
and writes each back unchanged (a merge patch holding only the object's resourceVersion, which
the API server encodes again at the storage version; a conflict or a deletion means another
write got there first, which did the same), then sets storedVersions to the storage version
alone, guarded by the CRD's resourceVersion (a CRD changed meanwhile is looked at again).

It runs on the leader (one writer per cluster), once per start, and again after a backoff for
a CRD it could not finish (the conversion webhook away, the API server restarting); a CRD not
installed has nothing stored. Listing at the storage version converts the objects still at the
old one, so it needs the conversion webhook, served by the same process in the operator.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import anyio
import anyio.abc

from manager.runtime.backoff import Backoff
from manager.runtime.client.errors import Conflict, KubeError, NotFound
from manager.runtime.client.rest import RestClient
from manager.runtime.clock import Clock, RealClock
from manager.runtime.kinds import CUSTOM_RESOURCE_DEFINITION, ResourceKind
from manager.runtime.logging import get_logger

__all__ = ["StorageVersionMigration", "storage_kind"]

log = get_logger(__name__)


def storage_kind(crd: Mapping[str, Any]) -> ResourceKind:
    """The CRD's kind at its storage version."""
    spec = crd["spec"]
    (storage,) = (v["name"] for v in spec["versions"] if v.get("storage"))
    names = spec["names"]
    return ResourceKind(
        f"{spec['group']}/{storage}",
        names["kind"],
        names["plural"],
        namespaced=spec.get("scope") == "Namespaced",
    )


class StorageVersionMigration:
    needs_leader_election = True

    def __init__(
        self,
        rest: RestClient,
        crd_names: Collection[str],
        *,
        field_manager: str,
        clock: Clock | None = None,
    ) -> None:
        self._rest = rest
        self._names = sorted(crd_names)
        self._field_manager = field_manager
        self._clock = clock or RealClock()

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Ready at once (nothing waits for it); moves every CRD's objects, then idles."""
        task_status.started()
        backoff = Backoff(self._clock, initial=1.0, cap=60.0)
        pending = list(self._names)
        while pending:
            for name in list(pending):
                try:
                    await self.migrate(name)
                    pending.remove(name)
                except KubeError as error:
                    log.warning(
                        "moving stored objects to the storage version failed; trying again",
                        crd=name,
                        error=str(error),
                    )
            if pending:
                await backoff.wait()
        await anyio.sleep_forever()

    async def migrate(self, name: str) -> int:
        """Move CRD `name`'s objects to its storage version; how many were written back."""
        try:
            crd = await self._rest.get(CUSTOM_RESOURCE_DEFINITION, None, name)
        except NotFound:
            return 0
        kind = storage_kind(crd)
        stored = (crd.get("status") or {}).get("storedVersions") or []
        if stored == [kind.version]:
            return 0
        moved = 0
        async for page in self._rest.list_pages(kind, None):
            for obj in page.items:
                moved += await self._write_back(kind, obj["metadata"])
        await self._rest.merge_patch(
            CUSTOM_RESOURCE_DEFINITION,
            None,
            name,
            {
                "metadata": {"resourceVersion": crd["metadata"]["resourceVersion"]},
                "status": {"storedVersions": [kind.version]},
            },
            field_manager=self._field_manager,
            subresource="status",
        )
        log.info(
            "stored objects moved to the storage version",
            crd=name,
            version=kind.version,
            previously=stored,
            objects=moved,
        )
        return moved

    async def _write_back(self, kind: ResourceKind, metadata: Mapping[str, Any]) -> int:
        try:
            await self._rest.merge_patch(
                kind,
                metadata.get("namespace"),
                metadata["name"],
                {"metadata": {"resourceVersion": metadata["resourceVersion"]}},
                field_manager=self._field_manager,
            )
        except (Conflict, NotFound):
            return 0  # written since (at the storage version) or deleted
        return 1
