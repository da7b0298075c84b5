"""``status.rollingUpdate`` of a graph: a rollout of its worker services to a new spec.

A planner holds its scaling while the phase is ``Pending`` or ``InProgress``, so the phase must
start when the pods of a worker service (componentType worker, prefill or decode) are about to
change, and end when every worker runs its current spec on every replica. Only the graph's own
status remembers anything between passes; the rest is read from the child DCDs.

A worker service is *changing* when its DCD shows a new spec on its way to the pods: the DCD is
new (missing, or it has never reported replicas), or it has not observed its generation while
its replica count is the one it runs (so something besides the count changed), or it runs
replicas of an older pod template (``updatedReplicas < replicas``). A DCD that has not observed a
new replica count is a scaling, not a rollout: the planner scales workers by their replica
counts, and each scaling must not look like a rollout that blocks the next one. A worker is
*done* when its DCD is ready at its generation with every replica updated and available.

===============================  ============================================================
previous phase -> this pass      when
===============================  ============================================================
(none) -> (none)                 the graph was never ``successful`` (creation is no rollout),
                                 or no edit reached a worker
(none), Completed, Failed        the graph was ``successful`` before (or had a rollout), its
-> InProgress                    generation differs from the one the status last observed,
                                 and some worker is changing: ``startTime`` now (Failed at
                                 once, with ``endTime`` now, if the graph is ``failed``)
InProgress -> InProgress         some worker is not done: ``startTime`` kept,
                                 ``updatedServices`` the workers done so far
InProgress -> Completed          every worker is done: ``endTime`` now, ``updatedServices``
                                 every worker
InProgress -> Failed             the graph is ``failed``: ``endTime`` now
Failed -> InProgress/Completed   the graph is no longer ``failed``: the rollout resumes with
                                 its ``startTime`` (a planner takes Failed as final)
Completed, Failed -> the same    otherwise: copied unchanged, so a graph at rest writes nothing
===============================  ============================================================

``Pending`` is never emitted: the reconciler derives the status after applying the DCDs, from
the API server's answer, so the pass that sees a new generation already sees the changed DCDs;
``InProgress`` holds the planner just the same. A ``Pending`` written by someone else is carried
on as ``InProgress``. ``updatedServices`` is sorted and omitted when empty. Limits: a worker
changed in the same edit as its replica count, seen before its DCD has observed it, is taken for
a scaling; and an edit of a graph that was successful once but is pending when edited (and
never had a rollout) starts none. The ``Ready`` condition reports those rollouts all the same.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dynamo_operator.api import (
    WORKER_LIKE_COMPONENT_TYPES,
    GraphDeploymentState,
    RollingUpdatePhase,
)
from dynamo_operator.status.conditions import JsonDict, format_time

_UNDER_WAY = frozenset({RollingUpdatePhase.PENDING.value, RollingUpdatePhase.IN_PROGRESS.value})


@dataclass(frozen=True, slots=True)
class WorkerRollout:
    """One worker service as this pass sees it."""

    changing: bool
    """Its DCD shows a new spec on its way to the pods."""
    done: bool
    """Its DCD is ready at its generation, every replica updated and available."""


def is_worker(service: Mapping[str, Any] | None, dcd: Mapping[str, Any] | None) -> bool:
    """Whether a service is a worker: by its DCD's componentType (what runs), else the graph's."""
    spec = (dcd or {}).get("spec") or {}
    component_type = spec.get("componentType") or (service or {}).get("componentType")
    return component_type in WORKER_LIKE_COMPONENT_TYPES


def _count(summary: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = summary.get(key)
    return value if isinstance(value, int) else default


def is_changing(dcd: Mapping[str, Any] | None) -> bool:
    """Whether a worker's DCD shows a new spec on its way to its pods (module docstring)."""
    if dcd is None:
        return True
    status = dcd.get("status") or {}
    summary = status.get("service")
    if not summary:
        return True
    generation = (dcd.get("metadata") or {}).get("generation")
    if isinstance(generation, int) and status.get("observedGeneration") != generation:
        desired = _count(dcd.get("spec") or {}, "replicas", default=1)
        return desired == _count(summary, "replicas")
    return _count(summary, "updatedReplicas") < _count(summary, "replicas")


def derive_rolling_update(
    previous: Mapping[str, Any] | None,
    generation: int | None,
    state: GraphDeploymentState,
    workers: Mapping[str, WorkerRollout],
    now: datetime,
) -> JsonDict | None:
    """The graph's ``status.rollingUpdate``, or None while it has never had one.

    ``previous`` is the graph's status as read, ``generation`` its ``metadata.generation``,
    ``state`` the state this pass derived, ``workers`` its worker services by name.
    """
    last: Mapping[str, Any] = (previous or {}).get("rollingUpdate") or {}
    phase = last.get("phase")
    failed = state == GraphDeploymentState.FAILED
    if phase in _UNDER_WAY or (phase == RollingUpdatePhase.FAILED.value and not failed):
        return _rollout(last.get("startTime") or format_time(now), workers, failed, now)
    if _starts(previous, generation, workers):
        return _rollout(format_time(now), workers, failed, now)
    return copy.deepcopy(dict(last)) if last else None


def _starts(
    previous: Mapping[str, Any] | None,
    generation: int | None,
    workers: Mapping[str, WorkerRollout],
) -> bool:
    previous = previous or {}
    was_successful = (
        previous.get("state") == GraphDeploymentState.SUCCESSFUL.value
        or "rollingUpdate" in previous
    )
    new_generation = generation is not None and generation != previous.get("observedGeneration")
    return was_successful and new_generation and any(w.changing for w in workers.values())


def _rollout(
    start_time: str, workers: Mapping[str, WorkerRollout], failed: bool, now: datetime
) -> JsonDict:
    done = sorted(name for name, worker in workers.items() if worker.done)
    if failed:
        phase = RollingUpdatePhase.FAILED
    elif len(done) == len(workers):
        phase = RollingUpdatePhase.COMPLETED
    else:
        phase = RollingUpdatePhase.IN_PROGRESS
    rolling: JsonDict = {"phase": phase.value, "startTime": start_time}
    if phase != RollingUpdatePhase.IN_PROGRESS:
        rolling["endTime"] = format_time(now)
    if done:
        rolling["updatedServices"] = done
    return rolling
