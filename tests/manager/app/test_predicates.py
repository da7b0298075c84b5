"""Which events reach a controller: pod events only when they change the failure its pods show,
children appearing only when their controller did not make them."""

from __future__ import annotations

from typing import Any

from manager.app.predicates import not_made_by_its_controller, pod_failure_changed


def pod(*, waiting: str | None = None, scheduled: str | None = None) -> dict[str, Any]:
    """A component's pod as the cache keeps it, starting, pulling, or unschedulable."""
    container: dict[str, Any] = {"name": "main", "ready": False, "state": {}}
    if waiting:
        container["state"] = {"waiting": {"reason": waiting, "message": f"{waiting} message"}}
    status: dict[str, Any] = {"phase": "Pending", "containerStatuses": [container]}
    if scheduled:
        status["conditions"] = [
            {"type": "PodScheduled", "status": "False", "reason": scheduled, "message": "0/3"}
        ]
    metadata = {"name": "w-0", "namespace": "ns", "resourceVersion": "1"}
    return {"metadata": metadata, "status": status}


def running() -> dict[str, Any]:
    started = pod()
    started["status"] = {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {"name": "main", "ready": True, "state": {"running": {"startedAt": "now"}}}
        ],
    }
    return started


PREDICATE = pod_failure_changed()


def test_a_pod_on_its_way_to_running_wakes_no_component() -> None:
    assert not PREDICATE.create(pod())
    assert not PREDICATE.update(pod(), pod(waiting="ContainerCreating"))
    assert not PREDICATE.update(pod(waiting="ContainerCreating"), running())
    assert not PREDICATE.delete(running())


def test_a_pod_that_starts_or_stops_showing_a_failure_wakes_its_component() -> None:
    assert PREDICATE.update(pod(), pod(scheduled="Unschedulable"))
    assert PREDICATE.update(pod(waiting="ErrImagePull"), running())
    assert PREDICATE.create(pod(waiting="ImagePullBackOff"))
    assert PREDICATE.delete(pod(waiting="CrashLoopBackOff"))


def test_a_pod_whose_failure_changes_wakes_its_component() -> None:
    assert PREDICATE.update(pod(waiting="ErrImagePull"), pod(waiting="CrashLoopBackOff"))
    assert not PREDICATE.update(pod(waiting="ErrImagePull"), pod(waiting="ErrImagePull"))


def test_a_failing_pod_being_deleted_no_longer_counts() -> None:
    failing = pod(waiting="CrashLoopBackOff")
    deleting = {**failing, "metadata": {**failing["metadata"], "deletionTimestamp": "now"}}
    assert PREDICATE.update(failing, deleting)
    assert not PREDICATE.delete(deleting)


def child(*references: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": "c", "ownerReferences": list(references)}}


CONTROLLER = {"kind": "DynamoComponentDeployment", "uid": "u1", "controller": True}
OWNER = {"kind": "DynamoComponentDeployment", "uid": "u2"}


def test_a_child_its_controller_made_does_not_wake_it_when_it_appears() -> None:
    predicate = not_made_by_its_controller()

    assert not predicate.create(child(CONTROLLER))
    assert predicate.update(child(CONTROLLER), child(CONTROLLER))  # its changes do
    assert predicate.delete(child(CONTROLLER))


def test_a_shared_or_ownerless_child_appearing_wakes_its_owners() -> None:
    predicate = not_made_by_its_controller()

    assert predicate.create(child(OWNER))
    assert predicate.create(child())
