"""The DynamoModel reconciler: LoRA adapters loaded onto and unloaded from live workers.

``setup`` adds the controller to the manager, ``reconciler`` holds the five steps (the plan of
which adapter goes where is pure: ``dynamo_operator.lora_plan``), ``adapter_memory`` what this
process loaded where, ``workers`` the HTTP calls to the workers' LoRA routes (one shared client,
a manager runnable), ``watches`` the index, mapper and predicate that bring a model back to its
reconciler.
"""

from manager.app.reconcilers.model.adapter_memory import LoadedAdapters
from manager.app.reconcilers.model.reconciler import ModelKinds, ModelReconciler
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
