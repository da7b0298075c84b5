from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from dynamo_operator.api import GraphDeploymentState
from dynamo_operator.status import WorkerRollout, derive_rolling_update
from dynamo_operator.status.rolling_update import is_changing, is_worker

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(hours=3)
PENDING, SUCCESSFUL, FAILED = (
    GraphDeploymentState.PENDING,
    GraphDeploymentState.SUCCESSFUL,
    GraphDeploymentState.FAILED,
)
CHANGING = WorkerRollout(changing=True, done=False)
UNTOUCHED = WorkerRollout(changing=False, done=True)
ROLLED_OUT = WorkerRollout(changing=False, done=True)
ROLLING = WorkerRollout(changing=True, done=False)


def at_rest(generation: int = 3, **extra: Any) -> dict[str, Any]:
    """A graph's status at rest: successful at `generation`."""
    return {"state": "successful", "observedGeneration": generation, **extra}


def under_way(phase: str = "InProgress", **extra: Any) -> dict[str, Any]:
    rolling = {"phase": phase, "startTime": "2025-03-01T11:50:00Z", **extra}
    return at_rest(generation=4, state="pending", rollingUpdate=rolling)


def test_an_edit_reaching_a_worker_of_a_graph_at_rest_starts_a_rolling_update() -> None:
    workers = {"Decode": CHANGING, "Prefill": UNTOUCHED}

    rolling = derive_rolling_update(at_rest(), 4, PENDING, workers, NOW)

    assert rolling == {
        "phase": "InProgress",
        "startTime": "2025-03-01T12:00:00Z",
        "updatedServices": ["Prefill"],
    }


@pytest.mark.parametrize(
    ("previous", "generation", "workers"),
    [
        (None, 1, {"Decode": CHANGING}),
        ({"state": "pending", "observedGeneration": 1}, 2, {"Decode": CHANGING}),
        (at_rest(), 4, {"Decode": UNTOUCHED, "Prefill": UNTOUCHED}),
        (at_rest(), 3, {"Decode": CHANGING}),
    ],
    ids=["creation", "edit-during-creation", "no-worker-changing", "same-generation"],
)
def test_no_rolling_update_without_an_edit_reaching_a_worker_after_success(
    previous: dict[str, Any] | None, generation: int, workers: dict[str, WorkerRollout]
) -> None:
    assert derive_rolling_update(previous, generation, PENDING, workers, NOW) is None


def test_a_rollout_under_way_keeps_its_start_and_lists_the_workers_done() -> None:
    workers = {"Prefill": ROLLED_OUT, "Decode": ROLLING, "Agg": ROLLED_OUT}

    rolling = derive_rolling_update(under_way(), 4, PENDING, workers, NOW)

    assert rolling == {
        "phase": "InProgress",
        "startTime": "2025-03-01T11:50:00Z",
        "updatedServices": ["Agg", "Prefill"],
    }


def test_a_rollout_with_no_worker_done_yet_lists_none() -> None:
    rolling = derive_rolling_update(at_rest(), 4, PENDING, {"Decode": CHANGING}, NOW)

    assert rolling == {"phase": "InProgress", "startTime": "2025-03-01T12:00:00Z"}


def test_a_rollout_completes_when_every_worker_is_done() -> None:
    workers = {"Prefill": ROLLED_OUT, "Decode": ROLLED_OUT}

    rolling = derive_rolling_update(under_way(), 4, SUCCESSFUL, workers, NOW)

    assert rolling == {
        "phase": "Completed",
        "startTime": "2025-03-01T11:50:00Z",
        "endTime": "2025-03-01T12:00:00Z",
        "updatedServices": ["Decode", "Prefill"],
    }


def test_a_rollout_whose_workers_were_removed_completes() -> None:
    rolling = derive_rolling_update(under_way(), 5, SUCCESSFUL, {}, NOW)

    assert rolling is not None
    assert rolling["phase"] == "Completed"


def test_a_graph_failing_during_a_rollout_fails_it() -> None:
    workers = {"Prefill": ROLLED_OUT, "Decode": ROLLING}

    rolling = derive_rolling_update(under_way(), 4, FAILED, workers, NOW)

    assert rolling == {
        "phase": "Failed",
        "startTime": "2025-03-01T11:50:00Z",
        "endTime": "2025-03-01T12:00:00Z",
        "updatedServices": ["Prefill"],
    }


def test_a_pending_rollout_written_elsewhere_carries_on_in_progress() -> None:
    rolling = derive_rolling_update(under_way("Pending"), 4, PENDING, {"Decode": ROLLING}, NOW)

    assert rolling == {"phase": "InProgress", "startTime": "2025-03-01T11:50:00Z"}


def test_a_failed_rollout_resumes_when_the_graph_is_no_longer_failed() -> None:
    """A planner takes Failed as final: once the failure clears the rollout is under way again
    (or complete), with its first start time."""
    failed = under_way("Failed", endTime="2025-03-01T11:55:00Z")

    resumed = derive_rolling_update(failed, 4, PENDING, {"Decode": ROLLING}, NOW)
    completed = derive_rolling_update(failed, 4, SUCCESSFUL, {"Decode": ROLLED_OUT}, NOW)

    assert resumed == {"phase": "InProgress", "startTime": "2025-03-01T11:50:00Z"}
    assert completed is not None
    assert completed["phase"] == "Completed"
    assert completed["startTime"] == "2025-03-01T11:50:00Z"


def test_an_edit_of_a_failing_graph_that_reaches_a_worker_fails_at_once() -> None:
    previous = at_rest(rollingUpdate={"phase": "Completed", "startTime": "t0", "endTime": "t1"})

    rolling = derive_rolling_update(previous, 4, FAILED, {"Decode": CHANGING}, NOW)

    assert rolling == {
        "phase": "Failed",
        "startTime": "2025-03-01T12:00:00Z",
        "endTime": "2025-03-01T12:00:00Z",
    }


@pytest.mark.parametrize(
    ("phase", "state"),
    [("Completed", PENDING), ("Completed", SUCCESSFUL), ("Failed", FAILED)],
)
def test_a_finished_rollout_is_kept_as_it_was_while_nothing_new_rolls_out(
    phase: str, state: GraphDeploymentState
) -> None:
    rolling = {
        "phase": phase,
        "startTime": "2025-03-01T10:00:00Z",
        "endTime": "2025-03-01T10:20:00Z",
        "updatedServices": ["Decode"],
    }
    previous = at_rest(generation=4, rollingUpdate=rolling)
    workers = {"Decode": UNTOUCHED}

    assert derive_rolling_update(previous, 4, state, workers, NOW) == rolling
    assert derive_rolling_update(previous, 4, state, workers, LATER) == rolling


def test_deriving_again_later_from_what_was_written_gives_the_same_status() -> None:
    """The operator writes only when the status changes: no time may move at rest."""
    for state, workers in [
        (PENDING, {"Decode": ROLLING, "Prefill": ROLLED_OUT}),
        (SUCCESSFUL, {"Decode": ROLLED_OUT}),
        (FAILED, {"Decode": ROLLING}),
    ]:
        written = derive_rolling_update(under_way(), 4, state, workers, NOW)
        previous = {**under_way(), "rollingUpdate": written}
        assert derive_rolling_update(previous, 4, state, workers, LATER) == written


def test_the_result_shares_nothing_with_the_previous_status() -> None:
    previous = at_rest(rollingUpdate={"phase": "Completed", "updatedServices": ["Decode"]})
    pristine = copy.deepcopy(previous)

    rolling = derive_rolling_update(previous, 3, SUCCESSFUL, {}, NOW)
    assert rolling is not None
    rolling["updatedServices"].append("Prefill")

    assert previous == pristine


def dcd(
    *,
    generation: int = 2,
    observed: int = 2,
    spec_replicas: int | None = 2,
    replicas: int = 2,
    updated: int = 2,
) -> dict[str, Any]:
    spec = {} if spec_replicas is None else {"replicas": spec_replicas}
    service = {"replicas": replicas, "updatedReplicas": updated, "readyReplicas": updated}
    return {
        "metadata": {"name": "g-decode", "generation": generation},
        "spec": spec,
        "status": {"observedGeneration": observed, "service": service},
    }


@pytest.mark.parametrize(
    ("child", "changing"),
    [
        (None, True),
        ({"metadata": {"name": "g-decode", "generation": 1}, "spec": {}}, True),
        (dcd(observed=1), True),
        (dcd(observed=1, spec_replicas=None, replicas=1), True),
        (dcd(observed=1, spec_replicas=3), False),
        (dcd(updated=1), True),
        (dcd(), False),
        (dcd(replicas=3, spec_replicas=3, updated=3), False),
    ],
    ids=[
        "new-worker-not-created",
        "new-worker-never-reported",
        "spec-not-observed-same-count",
        "spec-not-observed-default-count",
        "new-count-not-observed-is-a-scaling",
        "older-template-replicas-left",
        "at-rest",
        "scaled-and-observed",
    ],
)
def test_which_worker_dcds_show_a_new_spec_on_its_way(
    child: dict[str, Any] | None, changing: bool
) -> None:
    assert is_changing(child) is changing


@pytest.mark.parametrize(
    ("service", "dcd_type", "worker"),
    [
        ({"componentType": "worker"}, None, True),
        ({"componentType": "prefill"}, None, True),
        ({"componentType": "decode"}, None, True),
        ({"componentType": "frontend"}, None, False),
        ({"componentType": "planner"}, None, False),
        ({}, None, False),
        ({}, "decode", True),
        ({"componentType": "worker"}, "frontend", False),
    ],
)
def test_workers_are_worker_prefill_and_decode_by_the_dcd_first(
    service: dict[str, Any], dcd_type: str | None, worker: bool
) -> None:
    child = None if dcd_type is None else {"spec": {"componentType": dcd_type}}

    assert is_worker(service, child) is worker
