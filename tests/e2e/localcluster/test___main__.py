"""`hack/local-cluster down` stops the real node only when its own `up --real-node` started it:
the node's state is machine-wide, and another session (a pytest run's real node) may hold it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from e2e.localcluster import __main__ as cli
from e2e.localcluster.realnode.real_node import RealNode


@dataclass
class FakeCluster:
    workdir: Path
    stopped: bool = False

    def stop(self) -> None:
        self.stopped = True


@dataclass
class FakeNode:
    name: str = "real-node"
    remaining: list[str] = field(default_factory=list)
    stopped: bool = False

    def stop(self) -> None:
        self.stopped = True


@pytest.fixture
def machine_node(monkeypatch: pytest.MonkeyPatch) -> FakeNode:
    """The real node running on the machine, whoever started it."""
    node = FakeNode()
    monkeypatch.setattr(RealNode, "attach", staticmethod(lambda *_: node))
    return node


def down(tmp_path: Path, *, started_a_real_node: bool) -> FakeCluster:
    workdir = tmp_path / "cluster"
    workdir.mkdir()
    if started_a_real_node:
        (workdir / cli._STARTED_A_REAL_NODE).touch()
    pointer = tmp_path / "local-cluster.workdir"
    pointer.write_text(str(workdir))
    cluster = FakeCluster(workdir)
    fake: Any = cluster
    cli._stop_and_remove(fake, pointer)
    assert not pointer.exists()
    assert not workdir.exists()
    return cluster


def test_down_after_a_plain_up_leaves_the_machines_real_node_alone(
    tmp_path: Path, machine_node: FakeNode
) -> None:
    cluster = down(tmp_path, started_a_real_node=False)

    assert cluster.stopped
    assert not machine_node.stopped


def test_down_after_up_real_node_stops_the_node_it_started(
    tmp_path: Path, machine_node: FakeNode
) -> None:
    cluster = down(tmp_path, started_a_real_node=True)

    assert cluster.stopped
    assert machine_node.stopped
