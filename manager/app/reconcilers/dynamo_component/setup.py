"""How `dynamo-operator run` runs the DynamoComponent controller: its builder Jobs cached by their
label (never every Job of the cluster), the registry client as a manager runnable."""

from __future__ import annotations

from dynamo_operator.image_build import IMAGE_BUILDER_LABEL
from manager.app.deps import Deps
from manager.app.kinds import DYNAMO_COMPONENT
from manager.app.predicates import spec_or_metadata_changed
from manager.app.reconcilers.dynamo_component.reconciler import DynamoComponentReconciler
from manager.app.reconcilers.dynamo_component.registry import HttpImageRegistry
from manager.runtime.builder import ControllerBuilder
from manager.runtime.controller import Controller
from manager.runtime.kinds import JOB
from manager.runtime.manager import Manager

__all__ = ["setup"]


def setup(manager: Manager, deps: Deps) -> Controller:
    """Add the DynamoComponent controller and its registry client to `manager`."""
    deps.cache.register(JOB, label_selector=f"{IMAGE_BUILDER_LABEL}=true")
    registry = HttpImageRegistry()
    manager.add(registry)
    reconciler = DynamoComponentReconciler(
        client=deps.client,
        reader=deps.cache.reader,
        recorder=deps.recorder,
        registry=registry,
        settings=deps.image_build,
        kind=DYNAMO_COMPONENT,
        now=deps.now,
    )
    return (
        ControllerBuilder(manager)
        .named("dynamocomponent")
        .for_(DYNAMO_COMPONENT, spec_or_metadata_changed())
        .owns(JOB)
        .with_options(max_concurrent_reconciles=deps.max_concurrent_reconciles)
        .complete(deps.reconciler_for(DYNAMO_COMPONENT, reconciler))
    )
