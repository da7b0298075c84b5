"""The object a process's own objects belong to, so that they go when it is uninstalled.

Beside what it reconciles, an operator creates a few objects for itself: its leader-election
Lease, the Secret of its webhook certificates. Nothing deletes those on `helm uninstall`; owned by
an object the installation removes (the operator's ServiceAccount, which the Pod names in
`spec.serviceAccountName`), the garbage collector does. An owner reference must name the owner's
uid, so the owner is read once, when the first owned object is created; one that cannot be read
(RBAC, deleted) leaves the objects unowned, as before, and is logged once.
"""

from __future__ import annotations

from typing import Any

from manager.runtime.client.errors import KubeError
from manager.runtime.client.rest import RestClient
from manager.runtime.kinds import ResourceKind
from manager.runtime.logging import get_logger

__all__ = ["ProcessOwner", "owned_metadata"]

_log = get_logger(__name__)


class ProcessOwner:
    """Owner references to the namespaced object `namespace/name` of `kind`."""

    def __init__(self, rest: RestClient, kind: ResourceKind, namespace: str, name: str) -> None:
        if not kind.namespaced:
            raise ValueError(f"{kind} is cluster-scoped: name a namespaced owner")
        self._rest = rest
        self._kind = kind
        self.namespace = namespace
        self.name = name
        self._uid: str | None = None
        self._failed = False

    async def reference(self, namespace: str) -> dict[str, Any] | None:
        """The ownerReference for an object created in `namespace`, or None when it cannot have
        one (another namespace: owners are namespace-local; or the owner is unreadable)."""
        if namespace != self.namespace:
            return None
        if self._uid is None:
            try:
                owner = await self._rest.get(self._kind, self.namespace, self.name)
            except KubeError as error:
                if not self._failed:
                    _log.warning(
                        "own objects left without an owner",
                        owner=f"{self._kind.kind} {self.namespace}/{self.name}",
                        error=str(error),
                    )
                    self._failed = True
                return None
            self._uid = str(owner["metadata"]["uid"])
        return {
            "apiVersion": self._kind.api_version,
            "kind": self._kind.kind,
            "name": self.name,
            "uid": self._uid,
        }


async def owned_metadata(owner: ProcessOwner | None, metadata: dict[str, Any]) -> dict[str, Any]:
    """`metadata` (with its namespace) plus an owner reference to `owner` when the object can
    have one (see `ProcessOwner.reference`)."""
    reference = await owner.reference(metadata["namespace"]) if owner is not None else None
    return metadata if reference is None else {**metadata, "ownerReferences": [reference]}
