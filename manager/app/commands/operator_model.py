"""The DynamoModel controller of `dynamo-operator run`: what it caches, watches and runs.

`add_model_controller` registers the cache options the controller needs (DynamoModels indexed by
namespace and base-model hash; only the EndpointSlices that carry a base-model hash label, which
are the model Services' slices, not every slice of the cluster), adds the HTTP client the
workers are called with (one shared session, a runnable started before the controllers and
closed after them) and builds the controller, its reconciles counted under
`resource_type=DynamoModel`. Call it before the manager runs, like the other controllers.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from dynamo_operator.constants import Labels
from manager.app.kinds import CUSTOM_KINDS
from manager.app.metrics import MeteredReconciler
from manager.app.reconcilers.model import (
    BASE_MODEL_INDEX,
    HttpLoraWorkers,
    LoraWorkers,
    ModelKinds,
    ModelReconciler,
    base_model_index,
    endpoint_slice_requests,
    model_changed,
)
from manager.runtime.builder import ControllerBuilder
from manager.runtime.cache import Cache
from manager.runtime.client import Client
from manager.runtime.controller import Controller, Reconciler
from manager.runtime.events import EventRecorder
from manager.runtime.kinds import ENDPOINT_SLICE
from manager.runtime.manager import Manager

__all__ = ["MODEL", "add_model_controller"]

MODEL = CUSTOM_KINDS["DynamoModel"]


def add_model_controller(
    manager: Manager,
    cache: Cache,
    client: Client,
    recorder: EventRecorder,
    *,
    max_concurrent_reconciles: int = 8,
    wrap: Callable[[Reconciler], Reconciler] = lambda reconciler: reconciler,
    workers: LoraWorkers | None = None,
) -> Controller:
    """Add the DynamoModel controller (and, unless `workers` is given, the HTTP client it calls
    the workers with) to `manager`; `wrap` wraps the metered reconciler (e.g. to skip
    namespaces another operator has claimed)."""
    cache.register(MODEL, indexers={BASE_MODEL_INDEX: base_model_index})
    cache.register(ENDPOINT_SLICE, label_selector=Labels.BASE_MODEL_HASH)
    if workers is None:
        http_workers = HttpLoraWorkers(user_agent=client.identity.user_agent)
        manager.add(http_workers)
        workers = http_workers
    reconciler = ModelReconciler(
        client=client,
        reader=cache.reader,
        recorder=recorder,
        workers=workers,
        kinds=ModelKinds(model=MODEL, endpoint_slice=ENDPOINT_SLICE),
        now=_now,
    )
    return (
        ControllerBuilder(manager)
        .named("dynamomodel")
        .for_(MODEL, model_changed())
        .watches(ENDPOINT_SLICE, endpoint_slice_requests(MODEL))
        .with_options(max_concurrent_reconciles=max_concurrent_reconciles)
        .complete(wrap(MeteredReconciler(reconciler, MODEL.kind)))
    )


def _now() -> datetime:
    return datetime.now(UTC)
