"""The graph's DynamoGraphDeploymentScalingAdapters: created when missing, deleted when unwanted.

The graph's reconciler owns which adapters exist (the adapter's own reconciler only moves
replicas): one per service with ``scalingAdapter.enabled``, built by
``dynamo_operator.builders.scaling_adapter``. A missing adapter is created with the service's
replicas; an existing one is never updated, since from its creation on the adapter is the source
of truth of the replicas (an HPA, KEDA or ``kubectl scale`` wrote them) and re-applying the built
adapter would reset them. An adapter the graph controls whose service lost the flag or left the
graph is deleted. An adapter of the same name the graph does not control (made by hand, or by
another graph whose name collides) is left alone: it scales nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from manager.app.kinds import SCALING_ADAPTER
from manager.runtime.cache import CacheReader
from manager.runtime.client import AlreadyExists, ApiError, Client
from manager.runtime.ownership import ChildChanges, is_controlled_by, is_namespace_terminating

__all__ = ["sync_scaling_adapters"]


async def sync_scaling_adapters(
    client: Client,
    reader: CacheReader,
    graph: Mapping[str, Any],
    desired: Sequence[Mapping[str, Any]],
    changes: ChildChanges,
) -> None:
    """Create the `desired` adapters that are missing and delete the graph's others, noting
    each write in `changes` (and, as `sync_children`, stopping at a namespace being deleted:
    `changes.namespace_terminating`)."""
    metadata = graph["metadata"]
    namespace, uid = metadata.get("namespace"), metadata["uid"]
    kind = SCALING_ADAPTER.kind
    for adapter in desired:
        name = adapter["metadata"]["name"]
        if reader.get(SCALING_ADAPTER, namespace, name) is not None:
            continue
        try:
            await client.create(adapter)
        except AlreadyExists:
            continue  # created since the cache read: not ours to update anyway
        except ApiError as error:
            if not is_namespace_terminating(error):
                raise
            changes.namespace_terminating = True
            return
        changes.created.append(f"{kind}/{name}")
    wanted = {adapter["metadata"]["name"] for adapter in desired}
    for live in reader.list(SCALING_ADAPTER, namespace, owner_uid=uid):
        name = live["metadata"]["name"]
        if name in wanted or not is_controlled_by(live, uid):
            continue
        if await client.delete(SCALING_ADAPTER, namespace, name):
            changes.deleted.append(f"{kind}/{name}")
