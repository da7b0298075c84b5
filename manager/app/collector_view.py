"""Owners first, as the garbage collector sees them: a graph writes its components, and a
component its workload, once the collector can see the owner.

Kubernetes' garbage collector watches graphs and components at v1beta1 (their group's preferred
version), which the API server's watch cache decodes from the stored v1alpha1 through the
conversion webhook, one event at a time; under load that stream lags the operator's own
v1alpha1 one. A child the collector sees before its owner makes it read the owner from the API
server (a conversion each), again every 5, 10, 20 ms until its watch catches up: about 15 reads a
graph at N = 500 (`bench.converge`'s `owner_reads_per_graph`), most of them in the minute that
creates every Deployment. So the operator watches the same stream (identities only) and holds a
new graph's or component's pass until its owner shows up there; the sighting queues the pass.

Never a wait that depends on the webhook: while that watch has not listed (the webhook down, or
v1beta1 not served) nothing waits, and nothing waits on a stream that has stopped (`STALL`) or
longer than `LONGEST`. While one waits it counts as pod-making work (`waiting`), so Services and
progress statuses stay behind it as they would behind a queued pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import anyio
import anyio.abc

from dynamo_operator.api import BETA_API_VERSION
from manager.runtime.cache import Informer
from manager.runtime.controller import Request
from manager.runtime.kinds import ResourceKind

__all__ = ["LONGEST", "STALL", "CollectorView"]

STALL = 10.0
"""Seconds the collector's stream may go without an event while an object waits: then it is
taken for broken (the webhook down, say) and the object waits no more. Under load the stream
lags but keeps moving, and waiting on it paces the operator to what the collector can see."""
LONGEST = 120.0
"""Seconds an object waits at most, however the stream moves."""
EXPIRY_INTERVAL = 1.0
"""Seconds between looks for objects that waited long enough."""
MAX_RELEASED = 10_000
"""Uids kept of objects that stopped waiting without a sighting (while the stream is broken)."""

Enqueue = Callable[[Request], None]
_Key = tuple[ResourceKind, str, str]


class CollectorView:
    """The graphs and components the garbage collector can see: their identities at v1beta1."""

    needs_leader_election = True
    """Only the leader writes children; a replica that is not leading never waits (`holds`)."""

    def __init__(self, api: Any, namespace: str | None, now: Callable[[], datetime]) -> None:
        self._api = api
        self._namespace = namespace
        self._now = now
        self._informers: dict[ResourceKind, Informer] = {}
        self._enqueue: dict[ResourceKind, Enqueue] = {}
        self._waiting: dict[_Key, tuple[str, datetime]] = {}
        """Who waits: uid, and since when."""
        self._released: set[str] = set()
        """Uids that waited their longest, or on a stopped stream: they wait no more."""
        self._last_event: datetime | None = None

    def follow(self, kind: ResourceKind, enqueue: Enqueue) -> Informer:
        """Watch `kind` at v1beta1; a sighting of an object that waited calls `enqueue`."""
        seen = ResourceKind(BETA_API_VERSION, kind.kind, kind.plural, kind.namespaced)
        informer = Informer(self._api, seen, self._namespace, transform=_identity)
        informer.add_event_handler(_Sightings(self, kind))
        self._informers[kind] = informer
        self._enqueue[kind] = enqueue
        return informer

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """List and watch until cancelled; started at once (nothing waits for the list)."""
        async with anyio.create_task_group() as group:
            for informer in self._informers.values():
                group.start_soon(informer.run)
            task_status.started()
            while True:
                await anyio.sleep(EXPIRY_INTERVAL)
                self.expire()

    def holds(self, kind: ResourceKind, obj: Mapping[str, Any]) -> bool:
        """Whether `obj`'s pass should wait (its sighting, or `expire`, queues it again): not
        once the collector can see it, nor while its stream is not there or has stopped, nor
        after `LONGEST`."""
        informer = self._informers.get(kind)
        metadata = obj["metadata"]
        key, uid = (kind, metadata.get("namespace") or "", metadata["name"]), metadata.get("uid")
        if (
            informer is None
            or not informer.has_synced
            or uid in self._released
            or _sighted(informer, metadata)
        ):
            self._waiting.pop(key, None)
            return False
        now = self._now()
        waited_uid, since = self._waiting.get(key) or (None, now)
        if waited_uid != uid:
            since = now
        self._waiting[key] = (str(uid), since)
        return True

    def waiting(self) -> bool:
        """Whether an object waits for the collector to see it."""
        return bool(self._waiting)

    def expire(self) -> None:
        """Queue again the objects that waited their longest, or on a stream that stopped (or
        went meanwhile: their pass finds nothing); they wait no more."""
        now = self._now()
        for key, (uid, since) in list(self._waiting.items()):
            if self._left(since, now) <= 0:
                del self._waiting[key]
                if len(self._released) >= MAX_RELEASED:
                    self._released.clear()  # a stream broken for long: some wait once more
                self._released.add(uid)
                kind, namespace, name = key
                self._enqueue[kind](Request(namespace, name))

    def heard(self, kind: ResourceKind, metadata: Mapping[str, Any]) -> None:
        """An event of the collector's stream: its object, if it waited, goes on."""
        self._last_event = self._now()
        self._released.discard(str(metadata.get("uid")))
        namespace, name = metadata.get("namespace") or "", metadata["name"]
        if self._waiting.pop((kind, namespace, name), None) is not None:
            self._enqueue[kind](Request(namespace, name))

    def _left(self, since: datetime, now: datetime) -> float:
        moving = STALL - (now - max(since, self._last_event or since)).total_seconds()
        return min(moving, LONGEST - (now - since).total_seconds())


class _Sightings:
    """Informer handler: every event of the stream is news for `CollectorView.heard`."""

    def __init__(self, view: CollectorView, kind: ResourceKind) -> None:
        self._view, self._kind = view, kind

    def on_add(self, obj: dict[str, Any], is_in_initial_list: bool = False) -> None:
        self._view.heard(self._kind, obj["metadata"])

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self._view.heard(self._kind, new["metadata"])  # a relist may bring one made again

    def on_delete(self, obj: dict[str, Any]) -> None:
        self._view.heard(self._kind, obj["metadata"])  # a waiting object that went goes on


def _sighted(informer: Informer, metadata: Mapping[str, Any]) -> bool:
    seen = informer.store.get(metadata.get("namespace") or "", metadata["name"])
    return seen is not None and seen["metadata"].get("uid") == metadata.get("uid")


def _identity(obj: dict[str, Any]) -> dict[str, Any]:
    """What a sighting keeps: who the object is, nothing of its spec or status."""
    metadata = obj.get("metadata") or {}
    return {
        "metadata": {
            key: metadata[key]
            for key in ("name", "namespace", "uid", "resourceVersion")
            if key in metadata
        }
    }
