"""How `dynamo-operator run` runs the DynamoGraphDeploymentScalingAdapter controller: adapters
and their graphs watched, reconciles counted under the adapter kind's `resource_type`."""

from __future__ import annotations

from manager.app.deps import Deps
from manager.app.kinds import GRAPH, SCALING_ADAPTER
from manager.app.reconcilers.scaling_adapter.reconciler import (
    AdapterKinds,
    ScalingAdapterReconciler,
)
from manager.app.reconcilers.scaling_adapter.watches import adapters_of_graph
from manager.runtime.builder import ControllerBuilder
from manager.runtime.controller import Controller
from manager.runtime.manager import Manager
from manager.runtime.predicate import GenerationChanged

__all__ = ["setup"]


def setup(manager: Manager, deps: Deps) -> Controller:
    """Add the scaling adapter controller to `manager`."""
    reconciler = ScalingAdapterReconciler(
        client=deps.client,
        reader=deps.cache.reader,
        recorder=deps.recorder,
        kinds=AdapterKinds(adapter=SCALING_ADAPTER, graph=GRAPH),
        now=deps.now,
    )
    return (
        ControllerBuilder(manager)
        .named("dynamographdeploymentscalingadapter")
        .for_(SCALING_ADAPTER, GenerationChanged)
        .watches(GRAPH, adapters_of_graph(SCALING_ADAPTER), GenerationChanged)
        .with_options(max_concurrent_reconciles=deps.max_concurrent_reconciles)
        .complete(deps.reconciler_for(SCALING_ADAPTER, reconciler))
    )
