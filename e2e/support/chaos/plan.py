"""What a chaos run does and when: its sizes (`ChaosPlan`) and the seeded schedule of steps.

The schedule is pure: the same plan and seed give the same steps (moments, targets, values), so a
failing run is replayed with its seed. It replays the *schedule*, not the interleaving: the
operator's own timing (how far it got when a kill lands) varies from run to run.

The window is split in three: the single operator is killed over the first part and the last, a
leader-elected pair runs in between (`pair_start` .. `pair_end`) and only its leader is killed.
The run ends with a single operator so the steady period counts no lease renewals (the leader's
renewals are writes). Faults happen in the order of the steps; user edits run beside them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, get_args

FaultKind = Literal[
    "operator_kill",
    "leader_kill",
    "apiserver_restart",
    "etcd_compaction",
    "webhook_outage_fail",
    "webhook_outage_ignore",
]
EditKind = Literal[
    "env",
    "replicas",
    "service_removed",
    "service_added",
    "graph_recreated",
    "namespace_deleted",
]
PhaseKind = Literal["pair_start", "pair_end"]
Action = FaultKind | EditKind | PhaseKind

FAULT_KINDS: Final[tuple[FaultKind, ...]] = get_args(FaultKind)
EDIT_KINDS: Final[tuple[EditKind, ...]] = get_args(EditKind)

PAIR_PHASE: Final = (0.55, 0.75)
"""Where, as fractions of the window, the leader-elected pair runs."""
EDITS_FROM: Final = 0.05
"""Edits start a little after the graphs are created, while they still converge."""


def _default_edits() -> dict[EditKind, int]:
    return {
        "env": 20,
        "replicas": 20,
        "service_removed": 10,
        "service_added": 10,
        "graph_recreated": 10,
        "namespace_deleted": 2,
    }


@dataclass(frozen=True)
class ChaosPlan:
    graphs: int = 200
    namespaces: int = 10
    operator_kills: int = 100
    leader_kills: int = 3
    apiserver_restarts: int = 10
    etcd_compactions: int = 1
    webhook_outages: int = 2
    """Alternating failurePolicy Fail and Ignore, Fail first."""
    webhook_outage_seconds: float = 20.0
    edits: Mapping[EditKind, int] = field(default_factory=_default_edits)
    window_seconds: float = 600.0
    """Over how long the faults and edits are spread (later steps wait for earlier faults)."""

    def counts(self) -> dict[str, int]:
        """How many steps of each fault and edit kind the schedule holds."""
        outages_fail = (self.webhook_outages + 1) // 2
        faults: dict[str, int] = {
            "operator_kill": self.operator_kills,
            "leader_kill": self.leader_kills,
            "apiserver_restart": self.apiserver_restarts,
            "etcd_compaction": self.etcd_compactions,
            "webhook_outage_fail": outages_fail,
            "webhook_outage_ignore": self.webhook_outages - outages_fail,
        }
        for kind, count in self.edits.items():
            faults[kind] = count
        return faults


@dataclass(frozen=True, order=True)
class Step:
    at: float
    """Seconds after the start of the chaos; the step never runs earlier."""
    action: Action
    target: int = 0
    """A graph index (edits of one graph), a namespace index (`namespace_deleted`), else 0."""
    value: int = 0
    """A random number the action draws its choices from (which service, how many replicas)."""


def build_schedule(plan: ChaosPlan, seed: int) -> list[Step]:
    """Every step of the run, in the order they happen."""
    rng = random.Random(seed)
    window = plan.window_seconds
    pair_from, pair_to = (window * fraction for fraction in PAIR_PHASE)
    steps = [Step(pair_from, "pair_start"), Step(pair_to, "pair_end")]
    steps += [
        Step(_outside(rng, window, pair_from, pair_to), "operator_kill")
        for _ in range(plan.operator_kills)
    ]
    # Strictly inside the pair phase, so the pair is up when its leader is killed.
    steps += [
        Step(rng.uniform(pair_from, pair_to) + 1e-3, "leader_kill")
        for _ in range(plan.leader_kills)
    ]
    steps += [
        Step(rng.uniform(0, window), "apiserver_restart") for _ in range(plan.apiserver_restarts)
    ]
    steps += [Step(rng.uniform(0, window), "etcd_compaction") for _ in range(plan.etcd_compactions)]
    steps += [
        Step(
            rng.uniform(0, window),
            "webhook_outage_fail" if index % 2 == 0 else "webhook_outage_ignore",
        )
        for index in range(plan.webhook_outages)
    ]
    for kind, count in plan.edits.items():
        targets = plan.namespaces if kind == "namespace_deleted" else plan.graphs
        steps += [
            Step(
                rng.uniform(window * EDITS_FROM, window),
                kind,
                target=rng.randrange(targets),
                value=rng.randrange(1_000_000),
            )
            for _ in range(count)
        ]
    return sorted(steps)


def _outside(rng: random.Random, window: float, start: float, end: float) -> float:
    """A moment in [0, window) outside [start, end), uniform over what is left."""
    moment = rng.uniform(0, window - (end - start))
    return moment if moment < start else moment + (end - start)


def describe(steps: list[Step]) -> dict[str, int]:
    """How many steps of each action."""
    counts: dict[str, int] = {}
    for step in steps:
        counts[step.action] = counts.get(step.action, 0) + 1
    return counts
