from __future__ import annotations

from typing import Any

from dynamo_operator.status.pods import Cause, pod_failure_cause


def pod(name: str, *, deleting: bool = False, **status: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if deleting:
        metadata["deletionTimestamp"] = "2025-03-01T11:00:00Z"
    return {"metadata": metadata, "status": status}


def waiting(name: str, reason: str, message: str | None = None) -> dict[str, Any]:
    state: dict[str, Any] = {"reason": reason}
    if message:
        state["message"] = message
    return {"name": name, "state": {"waiting": state}}


def test_pods_that_are_merely_starting_show_no_cause() -> None:
    starting = pod("p", containerStatuses=[waiting("main", "ContainerCreating")])
    assert pod_failure_cause([starting, pod("q")]) is None
    assert pod_failure_cause([]) is None


def test_a_missing_secret_is_a_container_config_error() -> None:
    broken = pod(
        "p",
        containerStatuses=[
            waiting("main", "CreateContainerConfigError", 'secret "hf-token" not found')
        ],
    )
    assert pod_failure_cause([broken]) == Cause(
        "ContainerConfigError", 'container main cannot be created: secret "hf-token" not found'
    )


def test_init_containers_are_looked_at_first() -> None:
    stuck = pod(
        "p",
        initContainerStatuses=[waiting("fetch-model", "ErrImagePull")],
        containerStatuses=[waiting("main", "PodInitializing")],
    )
    assert pod_failure_cause([stuck]) == Cause(
        "ImagePullFailed", "container fetch-model cannot pull its image: ErrImagePull"
    )


def test_the_same_pods_in_any_order_give_the_same_cause() -> None:
    first = pod("a", containerStatuses=[waiting("main", "CrashLoopBackOff")])
    second = pod("b", containerStatuses=[waiting("sidecar", "CrashLoopBackOff")])
    assert pod_failure_cause([second, first]) == pod_failure_cause([first, second])
    assert pod_failure_cause([second, first]) == Cause("CrashLoop", "container main keeps crashing")


def test_pods_being_deleted_are_ignored() -> None:
    old = pod("a", deleting=True, containerStatuses=[waiting("main", "ImagePullBackOff")])
    assert pod_failure_cause([old]) is None


def test_a_pod_pending_for_another_scheduling_reason_is_not_unschedulable() -> None:
    gated = pod(
        "p",
        conditions=[{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
    )
    assert pod_failure_cause([gated]) is None
