"""`KindRegistry`: kinds resolved once at start-up (by discovery) and looked up synchronously
afterwards, so a write never waits on discovery. Built-in kinds are there from the start.

It lives with the client, which reads it on every write, so that discovery depends on the client
and never the other way round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from manager.runtime.client.errors import KindNotFoundError
from manager.runtime.kinds import BUILT_IN_KINDS, ResourceKind

__all__ = ["KindRegistry"]


class KindRegistry:
    """The kinds a process uses, by `(apiVersion, kind)`; looked up without I/O."""

    def __init__(self, kinds: Iterable[ResourceKind] = BUILT_IN_KINDS) -> None:
        self._kinds = {(k.api_version, k.kind): k for k in kinds}

    def add(self, kind: ResourceKind) -> None:
        self._kinds[(kind.api_version, kind.kind)] = kind

    def get(self, api_version: str, kind: str) -> ResourceKind | None:
        return self._kinds.get((api_version, kind))

    def kind_for(self, api_version: str, kind: str) -> ResourceKind:
        found = self._kinds.get((api_version, kind))
        if found is None:
            raise KindNotFoundError(
                f"kind {kind} of {api_version} was not resolved: resolve it through discovery "
                "at start-up before writing objects of that kind"
            )
        return found

    def kind_of(self, obj: Mapping[str, Any]) -> ResourceKind:
        """The kind of an object from its `apiVersion` and `kind`."""
        return self.kind_for(str(obj.get("apiVersion")), str(obj.get("kind")))

    def __contains__(self, kind: object) -> bool:
        return (
            isinstance(kind, ResourceKind)
            and self._kinds.get((kind.api_version, kind.kind)) == kind
        )
