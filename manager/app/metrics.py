"""The upstream operator's `dynamo_operator_*` metrics, so its dashboards and alerts keep working.

They sit beside the controller-runtime series the core records (`controller_runtime_reconcile_*`,
`workqueue_*`, `rest_client_*`):

- `dynamo_operator_reconcile_total` / `_duration_seconds` by `resource_type`, `namespace` and
  `result` (`success`, `error`, `requeue`), and `dynamo_operator_reconcile_errors_total` by
  `error_type`, from a wrapper around each reconciler;
- `dynamo_operator_resources_total` by `resource_type`, `namespace` and `status` (the graph's
  `status.state`, `unknown` when unset), recounted from the cache every 30 s. The gauge is cleared
  before each count, so a state that drops to zero reads zero instead of keeping its last value
  (an upstream bug).
"""

from __future__ import annotations

import time
from collections import Counter as Tally
from collections.abc import Callable
from dataclasses import dataclass

import anyio
from anyio.abc import TaskStatus
from prometheus_client import Counter, Gauge, Histogram

from manager.runtime.cache import CacheReader
from manager.runtime.client import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    ServerError,
    TooManyRequests,
    TransportError,
    Unauthorized,
)
from manager.runtime.controller import Reconciler, Request, Result
from manager.runtime.kinds import ResourceKind

__all__ = ["MeteredReconciler", "ResourceCounter", "error_type"]

_LABELS = ["resource_type", "namespace", "result"]
RECONCILE_TOTAL = Counter(
    "dynamo_operator_reconcile_total", "Reconciles by resource type and result.", _LABELS
)
RECONCILE_DURATION = Histogram(
    "dynamo_operator_reconcile_duration_seconds",
    "Time spent in one reconcile, by resource type and result.",
    _LABELS,
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
RECONCILE_ERRORS = Counter(
    "dynamo_operator_reconcile_errors_total",
    "Failed reconciles by resource type and kind of error.",
    ["resource_type", "namespace", "error_type"],
)
RESOURCES = Gauge(
    "dynamo_operator_resources_total",
    "Resources the operator manages, by resource type, namespace and state.",
    ["resource_type", "namespace", "status"],
)

_ERROR_TYPES: tuple[tuple[type[Exception], str], ...] = (
    (NotFound, "not_found"),
    (AlreadyExists, "already_exists"),
    (Conflict, "conflict"),
    (Invalid, "validation"),
    (BadRequest, "bad_request"),
    (Unauthorized, "unauthorized"),
    (Forbidden, "forbidden"),
    (TooManyRequests, "rate_limited"),
    (TimeoutError, "timeout"),
    (TransportError, "unavailable"),
)


def error_type(error: BaseException) -> str:
    """The upstream `error_type` label of a reconcile failure."""
    for error_class, label in _ERROR_TYPES:
        if isinstance(error, error_class):
            return label
    if isinstance(error, ServerError):
        return "server_timeout" if error.code == 504 else "unavailable"
    return "internal"


@dataclass(frozen=True)
class MeteredReconciler:
    """`inner` with the `dynamo_operator_reconcile_*` series recorded around each call."""

    inner: Reconciler
    resource_type: str

    async def reconcile(self, request: Request) -> Result | None:
        started = time.perf_counter()
        result_label = "error"
        try:
            result = await self.inner.reconcile(request)
            requeued = result is not None and (result.requeue or bool(result.requeue_after))
            result_label = "requeue" if requeued else "success"
            return result
        except Exception as error:
            RECONCILE_ERRORS.labels(self.resource_type, request.namespace, error_type(error)).inc()
            raise
        finally:
            labels = (self.resource_type, request.namespace, result_label)
            RECONCILE_TOTAL.labels(*labels).inc()
            RECONCILE_DURATION.labels(*labels).observe(time.perf_counter() - started)


_SYNC_POLL = 0.5


class ResourceCounter:
    """Recounts the cached objects of `kind` by namespace and `status.state` every `interval`,
    leaving out the namespaces `exclude` names (another operator's)."""

    needs_leader_election = False

    def __init__(
        self,
        reader: CacheReader,
        kind: ResourceKind,
        *,
        interval: float = 30.0,
        exclude: Callable[[str], bool] | None = None,
    ) -> None:
        self._reader = reader
        self._kind = kind
        self._interval = interval
        self._exclude = exclude or (lambda _namespace: False)

    def count(self) -> None:
        """Reset the gauge and count again (the kind's informer must have synced)."""
        tally = Tally(
            (obj["metadata"].get("namespace") or "", (obj.get("status") or {}).get("state"))
            for obj in self._reader.list(self._kind)
            if not self._exclude(obj["metadata"].get("namespace") or "")
        )
        RESOURCES.clear()
        for (namespace, state), count in tally.items():
            RESOURCES.labels(self._kind.kind, namespace, state or "unknown").set(count)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        while True:
            # The first count comes as soon as the informer has listed, not one interval later.
            if self._reader.has_synced(self._kind):
                self.count()
                await anyio.sleep(self._interval)
            else:
                await anyio.sleep(_SYNC_POLL)
