"""The DynamoModel reconciler: LoRA adapters loaded onto and unloaded from live workers.

``setup`` adds the controller to the manager, ``reconciler`` holds the five steps, ``workers``
the HTTP calls to the workers' LoRA routes (one shared client, a manager runnable), ``watches``
the index, mapper and predicate that bring a model back to its reconciler.
"""

from manager.app.reconcilers.model.reconciler import (
    Adapter,
    LoadedAdapters,
    ModelKinds,
    ModelReconciler,
)
from manager.app.reconcilers.model.setup import setup
from manager.app.reconcilers.model.watches import (
    BASE_MODEL_INDEX,
    base_model_index,
    endpoint_slice_requests,
    model_changed,
)
from manager.app.reconcilers.model.workers import (
    LORA_REQUESTS,
    CallOutcome,
    HttpLoraWorkers,
    LoraWorkers,
)

__all__ = [
    "BASE_MODEL_INDEX",
    "LORA_REQUESTS",
    "Adapter",
    "CallOutcome",
    "HttpLoraWorkers",
    "LoadedAdapters",
    "LoraWorkers",
    "ModelKinds",
    "ModelReconciler",
    "base_model_index",
    "endpoint_slice_requests",
    "model_changed",
    "setup",
]
