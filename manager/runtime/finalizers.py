"""A finalizer one controller owns: added before the controller acts, removed once it cleaned up.

Both writes are JSON patches guarded by `test` operations, so they never replace a list the cache
has not seen: adding is guarded by the resourceVersion read (a concurrent change fails the patch
with 422 and the next pass tries again), removing by the finalizer still standing at the index
read. An added finalizer may not be in the cache yet on the next pass; `Finalizer` remembers the
uids it added so it does not add it twice.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from manager.runtime.client import Client, NotFound
from manager.runtime.kinds import ResourceKind

__all__ = ["Finalizer"]


class Finalizer:
    def __init__(self, client: Client, kind: ResourceKind, name: str) -> None:
        self._client = client
        self._kind = kind
        self.name = name
        self._added: set[str] = set()
        """Uids this process added the finalizer to (the cache may not show it yet)."""

    def holds(self, obj: Mapping[str, Any]) -> bool:
        return self.name in (obj["metadata"].get("finalizers") or ())

    async def ensure(self, obj: Mapping[str, Any]) -> None:
        """Add the finalizer unless the object has it."""
        metadata = obj["metadata"]
        finalizers = metadata.get("finalizers") or []
        if self.name in finalizers or metadata["uid"] in self._added:
            return
        add = (
            {"op": "add", "path": "/metadata/finalizers/-", "value": self.name}
            if finalizers
            else {"op": "add", "path": "/metadata/finalizers", "value": [self.name]}
        )
        guard = {
            "op": "test",
            "path": "/metadata/resourceVersion",
            "value": metadata["resourceVersion"],
        }
        await self._patch(obj, [guard, add])
        self._added.add(metadata["uid"])

    async def release(self, obj: Mapping[str, Any]) -> None:
        """Remove the finalizer if the object has it (a deleted object has nothing to hold)."""
        metadata = obj["metadata"]
        finalizers = list(metadata.get("finalizers") or [])
        self._added.discard(metadata["uid"])
        if self.name not in finalizers:
            return
        path = f"/metadata/finalizers/{finalizers.index(self.name)}"
        with contextlib.suppress(NotFound):
            await self._patch(
                obj,
                [{"op": "test", "path": path, "value": self.name}, {"op": "remove", "path": path}],
            )

    async def _patch(self, obj: Mapping[str, Any], operations: list[dict[str, Any]]) -> None:
        metadata = obj["metadata"]
        await self._client.rest.json_patch(
            self._kind,
            metadata["namespace"],
            metadata["name"],
            operations,
            field_manager=self._client.identity.field_manager,
        )
