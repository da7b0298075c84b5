from __future__ import annotations

from typing import Any

from dynamo_operator.status.workloads import (
    deployment_readiness,
    is_workload_ready,
    leader_worker_sets_readiness,
)


def leader_worker_set(name: str, *, ready: int = 1, generation: int = 1) -> dict[str, Any]:
    return {
        "kind": "LeaderWorkerSet",
        "metadata": {"name": name, "generation": generation},
        "spec": {"replicas": 1},
        "status": {
            "readyReplicas": ready,
            "updatedReplicas": 1,
            "conditions": [{"type": "Available", "status": "True", "observedGeneration": 1}],
        },
    }


def test_a_missing_deployment_reports_the_replicas_the_component_wants() -> None:
    readiness = deployment_readiness(None, "c", 3, [])
    assert not readiness.ready
    assert readiness.summary["replicas"] == 3


def test_an_unset_replica_count_means_one() -> None:
    deployment = {"metadata": {"generation": 1}, "spec": {}, "status": {"observedGeneration": 1}}
    readiness = deployment_readiness(deployment, "c", 1, [])
    assert readiness.message == "rollout in progress: 0 of 1 replicas updated"


def test_sets_beyond_the_wanted_replicas_are_ignored() -> None:
    sets = [leader_worker_set("c-0"), leader_worker_set("c-1", ready=0)]
    readiness = leader_worker_sets_readiness(sets, "c", 1, [])
    assert readiness.ready
    assert readiness.summary["replicas"] == 1


def test_a_leader_worker_set_condition_behind_its_generation_is_not_ready() -> None:
    readiness = leader_worker_sets_readiness([leader_worker_set("c-0", generation=2)], "c", 1, [])
    assert not readiness.ready
    assert readiness.message == (
        "0 of 1 LeaderWorkerSets ready; c-0: rollout of generation 2 not yet observed"
    )


def test_a_deployment_with_more_ready_replicas_than_wanted_is_not_ready_yet() -> None:
    # Seen after an API server restart: the old pod no longer in `replicas`, still ready.
    status = {
        "observedGeneration": 2,
        "replicas": 1,
        "updatedReplicas": 1,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "conditions": [{"type": "Available", "status": "True"}],
    }
    deployment = {"metadata": {"generation": 2}, "spec": {"replicas": 1}, "status": status}
    readiness = deployment_readiness(deployment, "c", 1, [])
    assert not readiness.ready
    assert readiness.message == "1 replicas beyond the 1 wanted are still ready"
    settled = {**status, "readyReplicas": 1, "availableReplicas": 1}
    assert deployment_readiness({**deployment, "status": settled}, "c", 1, []).ready


def test_one_workload_is_ready_by_the_rules_of_its_kind() -> None:
    status = {
        "observedGeneration": 1,
        "replicas": 2,
        "updatedReplicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "conditions": [{"type": "Available", "status": "True"}],
    }
    deployment = {
        "kind": "Deployment",
        "metadata": {"generation": 1},
        "spec": {"replicas": 2},
        "status": status,
    }
    assert is_workload_ready(deployment)
    assert not is_workload_ready({**deployment, "status": {**status, "availableReplicas": 1}})
    assert not is_workload_ready({**deployment, "spec": {"replicas": 2, "paused": True}})
    assert is_workload_ready({**deployment, "spec": {"replicas": 0}, "status": {}})
    assert is_workload_ready(leader_worker_set("c-0"))
    assert not is_workload_ready(leader_worker_set("c-0", ready=0))
