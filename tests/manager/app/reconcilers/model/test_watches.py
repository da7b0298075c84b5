from __future__ import annotations

from typing import Any

from manager.app.reconcilers.model import (
    BASE_MODEL_INDEX,
    base_model_index,
    endpoint_slice_requests,
    model_changed,
)
from manager.runtime.controller import Request

from .fakes import MODEL, QWEN_HASH, endpoint_slice, model


class IndexReader:
    def __init__(self, *models: dict[str, Any]) -> None:
        self.models = models

    def by_index(self, kind: Any, index: str, value: str) -> list[dict[str, Any]]:
        assert (kind, index) == (MODEL, BASE_MODEL_INDEX)
        return [m for m in self.models if value in base_model_index(m)]


def test_models_are_indexed_by_namespace_and_base_model_hash() -> None:
    assert list(base_model_index(model())) == [f"ns/{QWEN_HASH}"]
    assert list(base_model_index({"metadata": {"namespace": "ns"}, "spec": {}})) == []


def test_a_slice_maps_to_the_models_of_its_base_model_in_its_namespace() -> None:
    elsewhere = model(name="far", namespace="other")
    other_base = model(name="llama")
    other_base["spec"]["baseModelName"] = "meta-llama/Llama-3.1-8B"
    reader = IndexReader(model(name="a"), model(name="b"), elsewhere, other_base)
    requests = endpoint_slice_requests(MODEL)

    assert list(requests(endpoint_slice("10.0.0.1"), reader)) == [  # type: ignore[arg-type]
        Request("ns", "a"),
        Request("ns", "b"),
    ]
    unlabelled = {"metadata": {"namespace": "ns", "labels": {}}}
    assert list(requests(unlabelled, reader)) == []  # type: ignore[arg-type]


def test_a_model_comes_back_for_spec_changes_and_its_deletion_only() -> None:
    predicate = model_changed()
    before = model()
    status_only = {**model(), "status": {"readyEndpoints": 1}}
    deleting = model(deleting=True)
    newer = model(generation=2)

    assert predicate.update(before, newer)
    assert predicate.update(before, deleting)
    assert not predicate.update(before, status_only)
    assert not predicate.update(deleting, deleting)
