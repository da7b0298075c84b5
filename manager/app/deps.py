"""What the composition root gives each reconciler package's `setup(manager, deps)`.

A `setup` owns everything about its kind (cache registrations, watches, mappers, reactions to
optional APIs, metrics); what it is given is what several kinds share or what only the process
knows: the client, the cache, the Event recorder, the served optional APIs, the operator settings
(which change when an optional API appears), the flags that tune the controllers, and the
namespaces another operator has claimed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from dynamo_operator.image_build import ImageBuildSettings
from dynamo_operator.settings import OperatorSettings
from manager.app.collector_view import CollectorView
from manager.app.metrics import MeteredReconciler
from manager.runtime.cache import Cache
from manager.runtime.client import Client
from manager.runtime.controller import Reconciler
from manager.runtime.discovery import ServedApis
from manager.runtime.events import EventRecorder
from manager.runtime.kinds import ResourceKind
from manager.runtime.namespace_claims import ClaimAware, NamespaceClaims

__all__ = ["Deps", "utc_now"]

DEFAULT_IMAGE_BUILD = ImageBuildSettings()


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Deps:
    client: Client
    cache: Cache
    recorder: EventRecorder
    served_apis: ServedApis
    settings: Callable[[], OperatorSettings]
    """The settings as they are now: `available_apis` follows what the cluster serves."""
    max_concurrent_reconciles: int = 8
    max_concurrent_low_priority_reconciles: int = 0
    """The component controller's extra workers for work that can wait."""
    planner_cluster_role_name: str | None = None
    claims: NamespaceClaims | None = None
    """Cluster-wide mode: the namespaces a namespace-restricted operator has taken."""
    now: Callable[[], datetime] = utc_now
    image_build: ImageBuildSettings = DEFAULT_IMAGE_BUILD
    """How DynamoComponent images are checked and built."""
    pod_work_waiting: Callable[[], bool] = lambda: False
    """Whether work that makes pods exist (a new or changed graph or component) is queued:
    what can wait (a Service, a progress status) waits behind it, across graphs."""
    component_work_waiting: Callable[[], bool] = lambda: False
    """Whether any component pass is queued, at any priority (its Services, its status): a
    graph's progress, which summarises its components, waits behind them."""
    collector_view: CollectorView | None = None
    """Graphs and components as the garbage collector sees them: owners first."""

    def collector_holds(self, kind: ResourceKind) -> Callable[[Mapping[str, Any]], bool]:
        """Whether an object of `kind` waits for the garbage collector to see it."""
        view = self.collector_view
        if view is None:
            return lambda _obj: False
        return lambda obj: view.holds(kind, obj)

    def reconciler_for(self, kind: ResourceKind, reconciler: Reconciler) -> Reconciler:
        """`reconciler` as a controller runs it: its reconciles counted under `kind`'s
        `resource_type`, and skipped in namespaces another operator claimed."""
        metered = MeteredReconciler(reconciler, kind.kind)
        return metered if self.claims is None else ClaimAware(metered, self.claims)

    def is_claimed_elsewhere(self, namespace: str) -> bool:
        return self.claims is not None and self.claims.is_claimed(namespace)
