"""How `dynamo-operator run` runs the DynamoModel controller.

`setup` registers the cache options the controller needs (DynamoModels indexed by namespace and
base-model hash; only the EndpointSlices that carry a base-model hash label, which are the model
Services' slices, not every slice of the cluster), adds the HTTP client the workers are called
with (one shared session, a runnable started before the controllers and closed after them) and
builds the controller, its reconciles counted under `resource_type=DynamoModel`.
"""

from __future__ import annotations

from dynamo_operator.constants import Labels
from manager.app.deps import Deps
from manager.app.kinds import MODEL
from manager.app.reconcilers.model.reconciler import ModelKinds, ModelReconciler
from manager.app.reconcilers.model.watches import (
    BASE_MODEL_INDEX,
    base_model_index,
    endpoint_slice_requests,
    model_changed,
)
from manager.app.reconcilers.model.workers import HttpLoraWorkers
from manager.runtime.builder import ControllerBuilder
from manager.runtime.controller import Controller
from manager.runtime.kinds import ENDPOINT_SLICE
from manager.runtime.manager import Manager

__all__ = ["setup"]


def setup(manager: Manager, deps: Deps) -> Controller:
    """Add the DynamoModel controller and the HTTP client it calls the workers with."""
    deps.cache.register(MODEL, indexers={BASE_MODEL_INDEX: base_model_index})
    deps.cache.register(ENDPOINT_SLICE, label_selector=Labels.BASE_MODEL_HASH)
    workers = HttpLoraWorkers(user_agent=deps.client.identity.user_agent)
    manager.add(workers)
    reconciler = ModelReconciler(
        client=deps.client,
        reader=deps.cache.reader,
        recorder=deps.recorder,
        workers=workers,
        kinds=ModelKinds(model=MODEL, endpoint_slice=ENDPOINT_SLICE),
        now=deps.now,
    )
    return (
        ControllerBuilder(manager)
        .named("dynamomodel")
        .for_(MODEL, model_changed())
        .watches(ENDPOINT_SLICE, endpoint_slice_requests(MODEL))
        .with_options(max_concurrent_reconciles=deps.max_concurrent_reconciles)
        .complete(deps.reconciler_for(MODEL, reconciler))
    )
