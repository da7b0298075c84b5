"""The DynamoGraphDeploymentScalingAdapter reconciler: the adapter's replicas into its graph.

An adapter is the source of truth of one service's replicas (HPA, KEDA, ``kubectl scale`` and the
planner write its ``spec.replicas`` through the scale subresource). Each pass: read the adapter
and its graph from the cache; when the adapter scales the graph's service (the graph controls it
and the service still has ``scalingAdapter.enabled``) and their replicas differ, write the
adapter's value into the graph; then write the adapter's status once if it changed
(``replicas``, the pods' ``selector``, ``lastScaleTime`` when this pass scaled).

Which adapters exist is not decided here: the graph's reconciler creates the adapters its
services ask for and deletes those they no longer ask for (one owner of that rule). An adapter
that scales nothing (its graph or service gone, the flag off, made by someone else) is left as it
is until then.

The graph is written with a JSON merge patch of ``spec.services.<name>.replicas`` alone, under
the operator's field manager, rather than a server-side apply:

- an apply under the operator's one field manager would make the applied fields the complete set
  it owns: applying service A's replicas and then service B's would drop the operator's ownership
  of A's and, when nobody else owns that field, delete it from the graph;
- the user's own fields are left as they are: an update operation takes over the one field it
  changes (so the user's next server-side apply of a different value conflicts, which is right:
  the adapter owns it) and no other; a client-side ``kubectl apply`` of an unchanged manifest
  does not touch it, its last-applied annotation being unchanged;
- two adapters of one graph never overwrite each other: each patch names one service.

The patch names the graph's uid, so a graph deleted and created again under the same name since
the cache read it refuses a write computed for the old one.

The cache lags the status writes: the graph's change that a scale causes brings the adapter back
before its cached status shows the ``lastScaleTime`` just written, and a status derived from that
copy alone would remove it again. So the reconciler remembers the last one it wrote per adapter
until the cache shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dynamo_operator.builders import (
    derive_scaling_adapter_status,
    scaled_service,
    service_replicas,
    service_replicas_patch,
)
from manager.runtime.cache import CacheReader
from manager.runtime.client import BadRequest, Client, Forbidden, Invalid, NotFound
from manager.runtime.controller import Request, Result
from manager.runtime.events import EventRecorder
from manager.runtime.kinds import ResourceKind
from manager.runtime.status_report import StatusReport

__all__ = ["AdapterKinds", "ScalingAdapterReconciler"]


@dataclass(frozen=True, slots=True)
class AdapterKinds:
    adapter: ResourceKind
    graph: ResourceKind


class ScalingAdapterReconciler:
    def __init__(
        self,
        *,
        client: Client,
        reader: CacheReader,
        recorder: EventRecorder,
        kinds: AdapterKinds,
        now: Callable[[], datetime],
    ) -> None:
        self._client = client
        self._reader = reader
        self._recorder = recorder
        self._kinds = kinds
        self._now = now
        self._status = StatusReport(client, recorder)
        self._scale_times: dict[tuple[str, str], tuple[str, str]] = {}
        """(namespace, name) -> (uid, lastScaleTime) written, until the cache shows it."""

    async def reconcile(self, request: Request) -> Result | None:
        key = (request.namespace, request.name)
        adapter = self._reader.get(self._kinds.adapter, request.namespace, request.name)
        if adapter is None or adapter["metadata"].get("deletionTimestamp"):
            self._scale_times.pop(key, None)
            return None
        graph = self._graph(adapter)
        service = scaled_service(adapter, graph)
        if graph is None or service is None:
            return None  # scales nothing; the graph's reconciler deletes adapters it disowns
        scaled_at = None
        if (patch := service_replicas_patch(adapter, graph)) is not None:
            if not await self._scale(adapter, graph, patch, service_replicas(service)):
                return None
            scaled_at = self._now()
        status = derive_scaling_adapter_status(
            adapter, scaled_at=scaled_at, known_scale_time=self._known_scale_time(key, adapter)
        )
        result = await self._status.report(adapter, status, now=scaled_at or self._now())
        if scaled_at is not None:
            self._scale_times[key] = (adapter["metadata"].get("uid"), status["lastScaleTime"])
        return result

    def _known_scale_time(self, key: tuple[str, str], adapter: Mapping[str, Any]) -> str | None:
        """The lastScaleTime this reconciler wrote that the cached adapter does not show yet."""
        uid, written = self._scale_times.get(key, (None, None))
        cached = (adapter.get("status") or {}).get("lastScaleTime")
        if written is None or uid != adapter["metadata"].get("uid") or (cached or "") >= written:
            self._scale_times.pop(key, None)  # caught up, or another adapter of that name
            return None
        return written

    def _graph(self, adapter: Mapping[str, Any]) -> dict[str, Any] | None:
        reference = (adapter.get("spec") or {}).get("dgdRef") or {}
        name = reference.get("name")
        if not isinstance(name, str) or not name:
            return None
        return self._reader.get(self._kinds.graph, adapter["metadata"].get("namespace"), name)

    async def _scale(
        self,
        adapter: Mapping[str, Any],
        graph: Mapping[str, Any],
        patch: Mapping[str, Any],
        before: int,
    ) -> bool:
        """Write the adapter's replicas into the graph; False when the graph is gone. A refusal
        (the admission webhook, an invalid graph) is told on the adapter, then raised: the
        reconcile is retried with backoff."""
        metadata = graph["metadata"]
        service_name = adapter["spec"]["dgdRef"]["serviceName"]
        replicas = adapter["spec"]["replicas"]
        try:
            await self._client.merge_patch(
                self._kinds.graph, metadata.get("namespace"), metadata["name"], patch
            )
        except NotFound:
            return False
        except (Forbidden, Invalid, BadRequest) as error:
            self._recorder.event(
                adapter,
                "Warning",
                "ScaleFailed",
                f"cannot set {metadata['name']} service {service_name} to {replicas} "
                f"replicas: {error}",
            )
            raise
        self._recorder.event(
            adapter,
            "Normal",
            "Scaled",
            f"Scaled {metadata['name']} service {service_name} from {before} to {replicas} "
            "replicas",
        )
        return True
