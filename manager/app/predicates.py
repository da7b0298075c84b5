"""Predicates the Dynamo controllers share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.status import Cause, is_workload_ready, pod_failure_cause
from manager.runtime.predicate import (
    AnnotationsChanged,
    Funcs,
    GenerationChanged,
    LabelsChanged,
    Predicate,
    or_,
    turned_true,
)

__all__ = [
    "not_made_by_its_controller",
    "pod_failure_changed",
    "spec_or_metadata_changed",
    "workload_turned_ready",
]


def spec_or_metadata_changed() -> Predicate:
    # Status-only updates (our own writes) need no reconcile; labels and annotations reach the
    # children, so their changes do.
    return or_(GenerationChanged, LabelsChanged, AnnotationsChanged)


def not_made_by_its_controller() -> Predicate:
    """Lets through every event but a child appearing with a controller reference: its
    controller made it, and the pass that made it knew what it made (a new Deployment is not
    ready; a new Service has nothing to report). Waking it again would be a pass that finds
    nothing to do, about one in five of a component's. A child's changes and deletions, and a
    shared child appearing (no controller: its other owners may care), pass."""

    def made_by_someone_else(child: Mapping[str, Any]) -> bool:
        references = (child.get("metadata") or {}).get("ownerReferences") or ()
        return not any(reference.get("controller") is True for reference in references)

    return Funcs(on_create=made_by_someone_else)


def workload_turned_ready() -> Predicate:
    # The moment a component's workload is ready is the moment its status, and its graph's, can
    # say so: not a change to wait behind other work.
    return turned_true(is_workload_ready)


def pod_failure_changed() -> Predicate:
    """A pod event that changes the failure the pod shows (`pod_failure_cause`: an image that
    cannot be pulled, a crash loop, no node to run on), which is all a component's status reads
    of its pods: a pod created or deleted without one, or updated on its way to running, cannot
    change the status (its Deployment's events say how far the pods have got)."""

    def shown(pod: Mapping[str, Any]) -> Cause | None:
        return pod_failure_cause((pod,))

    return Funcs(
        on_create=lambda pod: shown(pod) is not None,
        on_update=lambda old, new: shown(old) != shown(new),
        on_delete=lambda pod: shown(pod) is not None,
    )
