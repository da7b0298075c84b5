"""Predicates the Dynamo controllers share."""

from __future__ import annotations

from dynamo_operator.status import is_workload_ready
from manager.runtime.predicate import (
    AnnotationsChanged,
    GenerationChanged,
    LabelsChanged,
    Predicate,
    or_,
    turned_true,
)

__all__ = ["spec_or_metadata_changed", "workload_turned_ready"]


def spec_or_metadata_changed() -> Predicate:
    # Status-only updates (our own writes) need no reconcile; labels and annotations reach the
    # children, so their changes do.
    return or_(GenerationChanged, LabelsChanged, AnnotationsChanged)


def workload_turned_ready() -> Predicate:
    # The moment a component's workload is ready is the moment its status, and its graph's, can
    # say so: not a change to wait behind other work.
    return turned_true(is_workload_ready)
