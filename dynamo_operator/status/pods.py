"""Why a component's pods are not running, read from the pods themselves.

A Deployment only says "0 of 2 available"; the pods say why: the scheduler found no node with a
free GPU, the image cannot be pulled, a referenced Secret is missing, or the container keeps
crashing. The causes are looked for in a fixed order (image pull, container configuration, crash
loop, scheduling) over pods sorted by name, so the same pods always give the same message.
Pods being deleted are ignored: during a rollout the old pods going away are not the problem.
Messages leave out pod names and restart counts, which change without anything new to report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from dynamo_operator.status.conditions import find_condition
from dynamo_operator.status.reasons import Reasons

_IMAGE_PULL_REASONS = frozenset(
    {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"}
)
_CONTAINER_CONFIG_REASONS = frozenset({"CreateContainerConfigError", "CreateContainerError"})
_CRASH_LOOP_REASON = "CrashLoopBackOff"


@dataclass(frozen=True, slots=True)
class Cause:
    """A condition reason (``Reasons``) and the human message that goes with it."""

    reason: str
    message: str


def _container_statuses(pod: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    status = pod.get("status") or {}
    yield from status.get("initContainerStatuses") or ()
    yield from status.get("containerStatuses") or ()


def _waiting(container: Mapping[str, Any]) -> Mapping[str, Any]:
    return (container.get("state") or {}).get("waiting") or {}


def _waiting_cause(
    pod: Mapping[str, Any], waiting_reasons: frozenset[str], reason: str, what: str
) -> Cause | None:
    """The first container waiting for one of `waiting_reasons`, as `container NAME <what>`."""
    for container in _container_statuses(pod):
        waiting = _waiting(container)
        if waiting.get("reason") in waiting_reasons:
            detail = waiting.get("message") or waiting["reason"]
            return Cause(reason, f"container {container.get('name')} {what}: {detail}")
    return None


def _image_pull(pod: Mapping[str, Any]) -> Cause | None:
    return _waiting_cause(
        pod, _IMAGE_PULL_REASONS, Reasons.IMAGE_PULL_FAILED, "cannot pull its image"
    )


def _container_config(pod: Mapping[str, Any]) -> Cause | None:
    return _waiting_cause(
        pod, _CONTAINER_CONFIG_REASONS, Reasons.CONTAINER_CONFIG_ERROR, "cannot be created"
    )


def _crash_loop(pod: Mapping[str, Any]) -> Cause | None:
    for container in _container_statuses(pod):
        if _waiting(container).get("reason") != _CRASH_LOOP_REASON:
            continue
        message = f"container {container.get('name')} keeps crashing"
        terminated = (container.get("lastState") or {}).get("terminated") or {}
        if terminated.get("exitCode") is not None:
            message += f": last exit code {terminated['exitCode']}"
            if terminated.get("reason"):
                message += f" ({terminated['reason']})"
        return Cause(Reasons.CRASH_LOOP, message)
    return None


def _unschedulable(pod: Mapping[str, Any]) -> Cause | None:
    scheduled = find_condition((pod.get("status") or {}).get("conditions"), "PodScheduled")
    if scheduled is None or scheduled.get("status") != "False":
        return None
    if scheduled.get("reason") != "Unschedulable":
        return None
    return Cause(Reasons.UNSCHEDULABLE, scheduled.get("message") or "pod cannot be scheduled")


_FINDERS: tuple[Callable[[Mapping[str, Any]], Cause | None], ...] = (
    _image_pull,
    _container_config,
    _crash_loop,
    _unschedulable,
)


def pod_failure_cause(pods: Iterable[Mapping[str, Any]]) -> Cause | None:
    """The first cause found, or None when no pod shows one (they may simply be starting)."""
    live = sorted(
        (pod for pod in pods if not (pod.get("metadata") or {}).get("deletionTimestamp")),
        key=lambda pod: str((pod.get("metadata") or {}).get("name")),
    )
    for find in _FINDERS:
        for pod in live:
            cause = find(pod)
            if cause is not None:
                return cause
    return None
