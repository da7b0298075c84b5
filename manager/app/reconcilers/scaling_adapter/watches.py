"""What brings an adapter back to its reconciler: its own spec changes and its graph's.

An adapter's spec changes when something scales it (``GenerationChanged``; its status is ours).
A graph's spec change may turn a service's adapter on or off or change its replicas behind the
adapter's back (a planner's patch): ``adapters_of_graph`` maps it to the adapters the graph
controls, found through the cache's owner index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from manager.runtime.cache import CacheReader
from manager.runtime.controller import Request
from manager.runtime.kinds import ResourceKind
from manager.runtime.ownership import is_controlled_by

__all__ = ["adapters_of_graph"]


def adapters_of_graph(
    adapter_kind: ResourceKind,
) -> Callable[[Mapping[str, Any], CacheReader], Iterable[Request]]:
    """A graph's adapters (those it controls), in its namespace."""

    def requests(graph: Mapping[str, Any], reader: CacheReader) -> Iterable[Request]:
        metadata = graph.get("metadata") or {}
        namespace, uid = metadata.get("namespace") or "", metadata.get("uid")
        if not uid:
            return ()
        return [
            Request(namespace, adapter["metadata"]["name"])
            for adapter in reader.list(adapter_kind, namespace, owner_uid=uid)
            if is_controlled_by(adapter, uid)
        ]

    return requests
