"""Predicates the Dynamo controllers share."""

from __future__ import annotations

from manager.runtime.predicate import (
    AnnotationsChanged,
    GenerationChanged,
    LabelsChanged,
    Predicate,
    or_,
)

__all__ = ["spec_or_metadata_changed"]


def spec_or_metadata_changed() -> Predicate:
    # Status-only updates (our own writes) need no reconcile; labels and annotations reach the
    # children, so their changes do.
    return or_(GenerationChanged, LabelsChanged, AnnotationsChanged)
