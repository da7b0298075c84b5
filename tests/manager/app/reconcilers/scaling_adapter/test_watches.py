"""A graph's change reaches the adapters it controls, and only those."""

from __future__ import annotations

from manager.app.kinds import SCALING_ADAPTER
from manager.app.reconcilers.scaling_adapter import adapters_of_graph
from manager.runtime.controller import Request

from .fakes import FakeReader, adapter, graph


def test_a_graph_maps_to_the_adapters_it_controls() -> None:
    reader = FakeReader(
        adapter(name="llm-vllmworker"),
        adapter(name="llm-frontend", service="Frontend"),
        adapter(name="llm-other", owner_uid="another-graph"),
        adapter(name="llm-borrowed", controller=False),
    )

    requests = adapters_of_graph(SCALING_ADAPTER)(graph(), reader)  # type: ignore[arg-type]

    assert set(requests) == {Request("ns", "llm-frontend"), Request("ns", "llm-vllmworker")}
