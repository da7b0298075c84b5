"""Statuses this process wrote and its cache has not seen yet: the cure for comparing with a
stale cache right after a write.

Resource versions are compared as integers. Kubernetes documents them as opaque, but every API
server stores etcd revisions in them, and one that does not parse simply disables the memory
(the cache is trusted, as without it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["WrittenStatuses"]

MAX_REMEMBERED = 10_000


class WrittenStatuses:
    """The last status written per object uid, with the resourceVersion the write produced."""

    def __init__(self) -> None:
        self._by_uid: dict[str, tuple[int, Mapping[str, Any]]] = {}

    def remember(self, written: Mapping[str, Any]) -> None:
        """Record the object the server returned for a status write."""
        metadata = written.get("metadata") or {}
        uid, version = metadata.get("uid"), _version(metadata)
        if not uid or version is None:
            return
        if len(self._by_uid) >= MAX_REMEMBERED:
            self._by_uid.clear()  # a bound, not a policy: forgetting only costs a redundant write
        self._by_uid[uid] = (version, written.get("status") or {})

    def freshest(self, cached: Mapping[str, Any]) -> Mapping[str, Any]:
        """The status of `cached`, or the one written since if the cache has not caught up."""
        metadata = cached.get("metadata") or {}
        remembered = self._by_uid.get(metadata.get("uid") or "")
        cached_status: Mapping[str, Any] = cached.get("status") or {}
        if remembered is None:
            return cached_status
        written_version, written_status = remembered
        cached_version = _version(metadata)
        if cached_version is None or cached_version >= written_version:
            del self._by_uid[metadata["uid"]]
            return cached_status
        return written_status


def _version(metadata: Mapping[str, Any]) -> int | None:
    try:
        return int(metadata.get("resourceVersion") or "")
    except ValueError:
        return None
