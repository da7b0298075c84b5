"""Readiness of a component's workload: its Deployment, or its LeaderWorkerSets when multinode.

A Deployment is ready when it is not paused and either wants no replicas, or its controller has
observed its latest generation, at least the desired number of replicas are updated and
available, no replica of an older template is left (``status.replicas`` counts old and new), no
more replicas are ready than it wants, and its ``Available`` condition is True: the rules of
``kubectl rollout status``, and one more. Counting updated and old replicas is what keeps a
rollout from looking finished while old pods still serve.

A multinode component has one LeaderWorkerSet per replica (``<dcd>-<i>``); it is ready when every
expected set exists and has as many ready and updated groups as it wants, its ``Available``
condition is True, and it has observed its generation where it reports one (LeaderWorkerSet
reports no ``status.observedGeneration``; its conditions may carry one).

A workload that is not ready says why: a cause read from the pods when there is one, else a
stalled rollout (``ProgressDeadlineExceeded``), else the rollout's progress in numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dynamo_operator.api import ServiceComponentKind
from dynamo_operator.naming import leader_worker_set_name
from dynamo_operator.status.conditions import JsonDict, find_condition, is_condition_true
from dynamo_operator.status.pods import pod_failure_cause
from dynamo_operator.status.reasons import Reasons


@dataclass(frozen=True, slots=True)
class WorkloadReadiness:
    ready: bool
    reason: str
    message: str
    summary: JsonDict
    """The replica summary (``ServiceReplicaStatus`` wire form)."""


def _count(status: Mapping[str, Any], key: str) -> int:
    value = status.get(key)
    return value if isinstance(value, int) else 0


_PAUSED = "Deployment is paused"


def _desired(spec: Mapping[str, Any]) -> int:
    replicas = spec.get("replicas")
    return replicas if isinstance(replicas, int) else 1


def _deployment_summary(name: str, desired: int, status: Mapping[str, Any]) -> JsonDict:
    return {
        "componentKind": ServiceComponentKind.DEPLOYMENT.value,
        "componentName": name,
        "replicas": desired,
        "updatedReplicas": _count(status, "updatedReplicas"),
        "readyReplicas": _count(status, "readyReplicas"),
        "availableReplicas": _count(status, "availableReplicas"),
    }


def _deployment_lag(deployment: Mapping[str, Any], desired: int) -> str | None:
    """Why a Deployment that is not paused and wants replicas is not ready, or None if it is."""
    generation = (deployment.get("metadata") or {}).get("generation")
    status = deployment.get("status") or {}
    observed = status.get("observedGeneration")
    if isinstance(generation, int) and (not isinstance(observed, int) or observed < generation):
        return f"rollout of generation {generation} not yet observed by the Deployment controller"
    updated = _count(status, "updatedReplicas")
    if updated < desired:
        return f"rollout in progress: {updated} of {desired} replicas updated"
    old = _count(status, "replicas") - updated
    if old > 0:
        return f"rollout in progress: {old} old replicas pending termination"
    serving = max(_count(status, "readyReplicas"), _count(status, "availableReplicas"))
    if serving > desired:
        # An old pod the Deployment no longer counts in `replicas` may still be ready for a
        # moment (seen after an API server restart): a planner reading the summary would see
        # more serving replicas than wanted, an unstable graph.
        return f"{serving - desired} replicas beyond the {desired} wanted are still ready"
    available = _count(status, "availableReplicas")
    if available < desired:
        return f"{available} of {desired} replicas available"
    condition = find_condition(status.get("conditions"), "Available")
    if condition is None or condition.get("status") != "True":
        detail = (condition or {}).get("message")
        return f"Deployment is not available: {detail}" if detail else "Deployment is not available"
    return None


def is_workload_ready(workload: Mapping[str, Any]) -> bool:
    """Whether one Deployment or LeaderWorkerSet is ready by the rules above, on its own (what
    its component's status turns on; a multinode component waits for all of its sets)."""
    if workload.get("kind") == "LeaderWorkerSet":
        return _leader_worker_set_lag(workload) is None
    return _deployment_unready(workload, _desired(workload.get("spec") or {})) is None


def deployment_readiness(
    deployment: Mapping[str, Any] | None,
    component_name: str,
    desired_if_missing: int,
    pods: Iterable[Mapping[str, Any]],
) -> WorkloadReadiness:
    if deployment is None:
        return WorkloadReadiness(
            ready=False,
            reason=Reasons.DEPLOYMENT_NOT_READY,
            message="Deployment not created yet",
            summary=_deployment_summary(component_name, desired_if_missing, {}),
        )
    spec = deployment.get("spec") or {}
    status = deployment.get("status") or {}
    desired = _desired(spec)
    summary = _deployment_summary(component_name, desired, status)
    why = _deployment_unready(deployment, desired)
    if why is None:
        return WorkloadReadiness(True, Reasons.DEPLOYMENT_READY, "Deployment is ready", summary)
    if why != _PAUSED:  # a rollout that lags: its pods or its deadline may say why
        cause = pod_failure_cause(pods)
        if cause is not None:
            return WorkloadReadiness(False, cause.reason, cause.message, summary)
        progressing = find_condition(status.get("conditions"), "Progressing")
        if progressing is not None and progressing.get("reason") == "ProgressDeadlineExceeded":
            detail = progressing.get("message") or "no progress"
            message = f"rollout exceeded its progress deadline: {detail}"
            return WorkloadReadiness(False, Reasons.PROGRESS_DEADLINE_EXCEEDED, message, summary)
    return WorkloadReadiness(False, Reasons.DEPLOYMENT_NOT_READY, why, summary)


def _deployment_unready(deployment: Mapping[str, Any], desired: int) -> str | None:
    """Why a Deployment is not ready by its own spec and status (paused, or its rollout's lag),
    or None if it is: the one rule both the status and the readiness predicate use."""
    if (deployment.get("spec") or {}).get("paused"):
        return _PAUSED
    return None if desired == 0 else _deployment_lag(deployment, desired)


def _leader_worker_set_lag(leader_worker_set: Mapping[str, Any] | None) -> str | None:
    """Why one LeaderWorkerSet is not ready, or None if it is."""
    if leader_worker_set is None:
        return "not created yet"
    spec = leader_worker_set.get("spec") or {}
    status = leader_worker_set.get("status") or {}
    desired = _desired(spec)
    if desired == 0:
        return None
    generation = (leader_worker_set.get("metadata") or {}).get("generation")
    available = find_condition(status.get("conditions"), "Available")
    observed = status.get("observedGeneration", (available or {}).get("observedGeneration"))
    if isinstance(generation, int) and isinstance(observed, int) and observed < generation:
        return f"rollout of generation {generation} not yet observed"
    updated = _count(status, "updatedReplicas")
    if updated < desired:
        return f"rollout in progress: {updated} of {desired} groups updated"
    ready = _count(status, "readyReplicas")
    if ready < desired:
        return f"{ready} of {desired} groups ready"
    if not is_condition_true(status.get("conditions"), "Available"):
        return "not available"
    return None


def _leader_worker_sets_summary(
    component_name: str, expected: Sequence[Mapping[str, Any] | None]
) -> JsonDict:
    """Sums over the expected sets; a missing set counts as one wanted group, none ready."""
    replicas = updated = ready = 0
    for leader_worker_set in expected:
        if leader_worker_set is None:
            replicas += 1
            continue
        status = leader_worker_set.get("status") or {}
        replicas += _desired(leader_worker_set.get("spec") or {})
        updated += _count(status, "updatedReplicas")
        ready += _count(status, "readyReplicas")
    return {
        "componentKind": ServiceComponentKind.LEADER_WORKER_SET.value,
        "componentName": component_name,
        "replicas": replicas,
        "updatedReplicas": updated,
        "readyReplicas": ready,
    }


def leader_worker_sets_readiness(
    leader_worker_sets: Iterable[Mapping[str, Any]],
    component_name: str,
    desired_groups: int,
    pods: Iterable[Mapping[str, Any]],
) -> WorkloadReadiness:
    """Over the sets ``<component>-0`` to ``<component>-<desired_groups - 1>``; extra sets (being
    scaled down) are ignored."""
    by_name = {(obj.get("metadata") or {}).get("name"): obj for obj in leader_worker_sets}
    names = [leader_worker_set_name(component_name, index) for index in range(desired_groups)]
    expected = [by_name.get(name) for name in names]
    summary = _leader_worker_sets_summary(component_name, expected)
    lagging = [
        (name, lag)
        for name, obj in zip(names, expected, strict=True)
        if (lag := _leader_worker_set_lag(obj)) is not None
    ]
    if not lagging:
        message = "All LeaderWorkerSets are ready"
        return WorkloadReadiness(True, Reasons.LEADER_WORKER_SETS_READY, message, summary)
    cause = pod_failure_cause(pods)
    if cause is not None:
        return WorkloadReadiness(False, cause.reason, cause.message, summary)
    name, lag = lagging[0]
    message = f"{len(names) - len(lagging)} of {len(names)} LeaderWorkerSets ready; {name}: {lag}"
    return WorkloadReadiness(False, Reasons.LEADER_WORKER_SETS_NOT_READY, message, summary)
