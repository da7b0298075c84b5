"""How `dynamo-operator run` runs the DynamoGraphDeployment controller: what it caches and
watches, and the `dynamo_operator_resources_total` count of graphs by state."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from manager.app.deps import Deps
from manager.app.kinds import COMPONENT, DYNAMO_COMPONENT, GRAPH, SCALING_ADAPTER
from manager.app.metrics import ResourceCounter
from manager.app.predicates import not_made_by_its_controller, spec_or_metadata_changed
from manager.app.reconcilers.graph_deployment.artifact_step import ArtifactStep
from manager.app.reconcilers.graph_deployment.artifacts import HttpArtifactStore
from manager.app.reconcilers.graph_deployment.reconciler import (
    GraphDeploymentReconciler,
    GraphKinds,
)
from manager.runtime.builder import ControllerBuilder
from manager.runtime.cache import CacheReader
from manager.runtime.controller import Controller, Request
from manager.runtime.handler import enqueue_for_owner
from manager.runtime.kinds import PERSISTENT_VOLUME_CLAIM
from manager.runtime.manager import Manager
from manager.runtime.predicate import Funcs

__all__ = ["graphs_naming_claim", "setup"]


def setup(manager: Manager, deps: Deps) -> Controller:
    """Add the graph controller and its resource counter to `manager`."""
    # Every PVC: a graph may name a claim the user made, not only those it creates.
    deps.cache.register(PERSISTENT_VOLUME_CLAIM)
    reconciler = GraphDeploymentReconciler(
        client=deps.client,
        reader=deps.cache.reader,
        recorder=deps.recorder,
        kinds=GraphKinds(graph=GRAPH, component=COMPONENT),
        settings=deps.settings,
        planner_cluster_role_name=deps.planner_cluster_role_name,
        now=deps.now,
        # At 2,000 graphs, every graph's first pending status (written once it had waited
        # PROGRESS_LONGEST) went out while the components' Services were still being written,
        # 2,000 writes in the minute that gated the last pods; behind them, most graphs'
        # first status is the one saying they are ready.
        progress_waits=lambda: deps.pod_work_waiting() or deps.component_work_waiting(),
        collector_holds=deps.collector_holds(GRAPH),
        artifacts=ArtifactStep(
            client=deps.client,
            reader=deps.cache.reader,
            store=HttpArtifactStore(),
            settings=deps.image_build,
            kind=DYNAMO_COMPONENT,
        ),
    )
    controller = (
        ControllerBuilder(manager)
        .named("dynamographdeployment")
        .for_(GRAPH, spec_or_metadata_changed())
        # A component appearing is the graph's own write: the pass that made it knew it, and a
        # pass woken by the first of its components would find the others not cached yet and
        # write them again. Their changes and deletions matter.
        .owns(COMPONENT, not_made_by_its_controller())
        # An adapter matters to its graph when it appears or goes (made again), not when scaled.
        .owns(SCALING_ADAPTER, Funcs(on_update=lambda _old, _new: False))
        .watches(PERSISTENT_VOLUME_CLAIM, graphs_naming_claim)
        # Every owner: the graphs naming one artifact share its DynamoComponent.
        .watches(DYNAMO_COMPONENT, enqueue_for_owner(GRAPH, only_controller=False))
        .with_options(max_concurrent_reconciles=deps.max_concurrent_reconciles)
        .complete(deps.reconciler_for(GRAPH, reconciler))
    )
    manager.add(ResourceCounter(deps.cache.reader, GRAPH, exclude=deps.is_claimed_elsewhere))
    if deps.collector_view is not None:
        deps.collector_view.follow(GRAPH, controller.queue.add)
    return controller


def graphs_naming_claim(claim: dict[str, Any], reader: CacheReader) -> Iterable[Request]:
    """The graphs that name a claim in `spec.pvcs`: a created or deleted claim changes their
    readiness."""
    metadata = claim.get("metadata") or {}
    namespace, name = metadata.get("namespace") or "", metadata.get("name")
    return [
        Request(namespace, dgd["metadata"]["name"])
        for dgd in reader.list(GRAPH, namespace)
        if any(pvc.get("name") == name for pvc in (dgd.get("spec") or {}).get("pvcs") or ())
    ]
