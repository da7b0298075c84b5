from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from e2e.localcluster import ports


def test_each_xdist_worker_has_its_own_ports_below_the_ephemeral_range() -> None:
    slices = [ports.worker_slice(f"gw{index}", 4) for index in range(4)]

    taken = [port for each in slices for port in each]
    assert len(taken) == len(set(taken)), "two workers share ports"
    assert min(taken) >= 15000
    assert max(taken) < 30000
    assert ports.worker_slice(None, 1) == range(15000, 30000)


def test_a_worker_hands_out_ports_of_its_slice_never_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw2")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
    monkeypatch.setattr(ports, "_handed_out", set())

    handed = [ports.free_port() for _ in range(300)]

    assert len(set(handed)) == 300
    assert set(handed) <= set(ports.worker_slice("gw2", 3))


@pytest.fixture
def listening() -> Iterator[int]:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield int(held.getsockname()[1])


def test_a_port_in_use_is_passed_over(listening: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ports, "_handed_out", set())
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    random_choice = ports._random.choice
    offered: list[int] = []

    def choice(candidates: range) -> int:
        # The port in use first, then random ones: a fixed second port may be in use too (a CI
        # run met `listening + 1` taken by another worker's connection).
        offered.append(random_choice(candidates) if offered else listening)
        return offered[-1]

    monkeypatch.setattr(ports._random, "choice", choice)

    port = ports.free_port()

    assert offered[0] == listening
    assert port != listening
    assert port == offered[-1]
