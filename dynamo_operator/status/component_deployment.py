"""The complete status of a DynamoComponentDeployment, derived from its workload and pods.

``Available`` and ``DynamoComponentReady`` carry the same verdict (the workload readiness of
``workloads.py``) with a reason and message that say why when the component is not ready;
``service`` summarises the workload's replicas and ``podSelector`` names the label that selects
exactly this component's pods. A multinode component on a cluster without the LeaderWorkerSet API
is reported as such (``unsupported``) instead of waiting forever.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from dynamo_operator.api import ConditionStatus, ServiceComponentKind, nodes_per_replica
from dynamo_operator.naming import component_pod_selector
from dynamo_operator.status.conditions import (
    JsonDict,
    Verdict,
    differs_only_in_progress,
    is_condition_true,
    observed_status,
)
from dynamo_operator.status.failure import StatusFailure
from dynamo_operator.status.reasons import ConditionTypes
from dynamo_operator.status.workloads import (
    WorkloadReadiness,
    deployment_readiness,
    leader_worker_sets_readiness,
)


class Unsupported(Protocol):
    """Why the workload could not be built (the builders' ``MultinodeUnsupported``)."""

    @property
    def reason(self) -> str: ...

    @property
    def message(self) -> str: ...


def _of_kind(objects: Iterable[Mapping[str, Any]], kind: str) -> list[Mapping[str, Any]]:
    return [obj for obj in objects if obj.get("kind") == kind]


def _readiness(
    dcd: Mapping[str, Any],
    workloads: Sequence[Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
    unsupported: Unsupported | None,
    failure: StatusFailure | None,
) -> WorkloadReadiness:
    name = str((dcd.get("metadata") or {}).get("name") or "")
    spec = dcd.get("spec") or {}
    replicas = spec.get("replicas")
    desired = replicas if isinstance(replicas, int) else 1
    multinode = nodes_per_replica(spec.get("multinode")) > 1
    if multinode:
        readiness = leader_worker_sets_readiness(
            _of_kind(workloads, ServiceComponentKind.LEADER_WORKER_SET), name, desired, pods
        )
    else:
        deployments = {
            (obj.get("metadata") or {}).get("name"): obj
            for obj in _of_kind(workloads, ServiceComponentKind.DEPLOYMENT)
        }
        readiness = deployment_readiness(deployments.get(name), name, desired, pods)
    override = failure or unsupported
    if override is None:
        return readiness
    return WorkloadReadiness(False, override.reason, override.message, readiness.summary)


def derive_component_status(
    dcd: Mapping[str, Any],
    workloads: Sequence[Mapping[str, Any]],
    now: datetime,
    *,
    pods: Sequence[Mapping[str, Any]] = (),
    unsupported: Unsupported | None = None,
    failure: StatusFailure | None = None,
) -> JsonDict:
    """The DCD's whole ``status`` (wire form).

    ``dcd`` is the object as read (its current conditions give the transition times);
    ``workloads`` its Deployment or LeaderWorkerSets (other kinds are ignored); ``pods`` the pods
    its selector matches, to explain a component that is not ready; ``unsupported`` the builders'
    verdict that the workload cannot exist here; ``failure`` a validation or reconcile failure.
    """
    metadata = dcd.get("metadata") or {}
    readiness = _readiness(dcd, workloads, pods, unsupported, failure)
    status_value = ConditionStatus.TRUE if readiness.ready else ConditionStatus.FALSE
    verdict = Verdict(status_value, readiness.reason, readiness.message)
    types = (ConditionTypes.AVAILABLE, ConditionTypes.COMPONENT_READY)
    status = observed_status(dcd, dict.fromkeys(types, verdict), now)
    status["podSelector"] = component_pod_selector(str(metadata.get("name") or ""))
    status["service"] = readiness.summary
    return status


def is_component_progress_only(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """True when an unavailable component's ``new`` status differs from ``old`` at most in how
    far it has got: its conditions' messages and the replica counts of ``service``. Becoming
    available, a new reason and a new generation are more than progress; a first status saying
    the component is not available yet is progress, from nothing to on its way."""
    if is_condition_true(new.get("conditions"), ConditionTypes.AVAILABLE):
        return False
    return not old or differs_only_in_progress(old, new, ("service",))
