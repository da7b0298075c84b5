"""The complete status of a DynamoGraphDeployment, derived from its component deployments.

``state`` is ``successful`` only when every service of ``spec.services`` has its DCD, that DCD has
observed its latest generation (so its status describes the current spec), reports ``Available``
True, and every replica it summarises is updated and available: a rolling update served by old
pods is still ``pending``. Anything else the reconciler waits for (``waiting``) also keeps the graph
pending. A validation or reconcile failure makes it ``failed``. The ``Ready`` condition is True
exactly when the state is ``successful``; its message names each child that is not ready and why,
in DCD-name order, within a bounded length. ``status.observedGeneration`` and the condition's
``observedGeneration`` are the graph's generation on every write, so a reader (Dynamo's planner)
knows the verdict is about the spec it sees.

``services`` copies each child's replica summary once the child reports one, with every count a
planner reads present (``replicas``, ``updatedReplicas``, ``readyReplicas``, ``availableReplicas``;
0 when the child left one out, since a planner divides by them). A LeaderWorkerSet reports no
available count: its ready groups serve, so ``availableReplicas`` is ``readyReplicas`` there.
``rollingUpdate`` tracks rollouts of the worker services (``rolling_update.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from dynamo_operator.api import ConditionStatus, GraphDeploymentState
from dynamo_operator.naming import component_deployment_name
from dynamo_operator.status.conditions import (
    JsonDict,
    Verdict,
    differs_only_in_progress,
    find_condition,
    observed_status,
)
from dynamo_operator.status.failure import StatusFailure
from dynamo_operator.status.reasons import (
    ALL_RESOURCES_READY_MESSAGE,
    RESOURCES_NOT_READY_PREFIX,
    ConditionTypes,
    Reasons,
)
from dynamo_operator.status.rolling_update import (
    WorkerRollout,
    derive_rolling_update,
    is_changing,
    is_worker,
)

MAX_MESSAGE_LENGTH = 1024
"""Longest ``Ready`` message; the API server allows far more, a terminal column does not."""
MAX_ENTRY_LENGTH = 256
"""Longest explanation of one child inside the message."""


def _child_lag(dcd: Mapping[str, Any] | None) -> str | None:
    """Why one child DCD is not ready, or None if it is."""
    if dcd is None:
        return "not created yet"
    generation = (dcd.get("metadata") or {}).get("generation")
    status = dcd.get("status") or {}
    observed = status.get("observedGeneration")
    if observed is None:
        return "not reconciled yet"
    if generation is not None and observed != generation:
        return f"generation {generation} not yet observed"
    available = find_condition(status.get("conditions"), ConditionTypes.AVAILABLE)
    if available is None or available.get("status") != ConditionStatus.TRUE:
        return str((available or {}).get("message") or "not ready")
    service = status.get("service") or {}
    replicas = service.get("replicas") or 0
    updated = service.get("updatedReplicas") or 0
    if updated < replicas:
        return f"rollout in progress: {updated} of {replicas} replicas updated"
    serving = service.get("availableReplicas", service.get("readyReplicas")) or 0
    if serving < replicas:
        return f"{serving} of {replicas} replicas available"
    return None


_COUNTS = ("replicas", "updatedReplicas", "readyReplicas")


def _replica_summary(summary: Mapping[str, Any]) -> JsonDict:
    """The child's summary with every count present (module docstring)."""
    copied = dict(summary)
    for key in _COUNTS:
        value = copied.get(key)
        copied[key] = value if isinstance(value, int) else 0
    if not isinstance(copied.get("availableReplicas"), int):
        copied["availableReplicas"] = copied["readyReplicas"]
    return copied


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _not_ready_message(entries: Sequence[str]) -> str:
    """``Resources not ready: a: why; b: why``, cut at whole entries with a count of the rest."""
    message = RESOURCES_NOT_READY_PREFIX
    for index, entry in enumerate(entries):
        part = ("; " if index else "") + _shorten(entry, MAX_ENTRY_LENGTH)
        rest = len(entries) - index - 1
        reserve = len(f"; and {rest} more") if rest else 0
        if len(message) + len(part) + reserve > MAX_MESSAGE_LENGTH:
            return f"{message}; and {len(entries) - index} more"
        message += part
    return message


def _services(
    dgd: Mapping[str, Any], dcds: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Mapping[str, Any] | None], dict[str, str]]:
    """Each expected DCD by name (None when missing), and the service name behind each DCD."""
    metadata = dgd.get("metadata") or {}
    graph_name = str(metadata.get("name") or "")
    services = (dgd.get("spec") or {}).get("services") or {}
    by_name = {(dcd.get("metadata") or {}).get("name"): dcd for dcd in dcds}
    service_of = {component_deployment_name(graph_name, service): service for service in services}
    return {name: by_name.get(name) for name in sorted(service_of)}, service_of


def derive_graph_status(
    dgd: Mapping[str, Any],
    dcds: Sequence[Mapping[str, Any]],
    now: datetime,
    *,
    failure: StatusFailure | None = None,
    waiting: Sequence[str] = (),
) -> JsonDict:
    """The DGD's whole ``status`` (wire form).

    ``dgd`` is the object as read (its current conditions give the transition times); ``dcds``
    its child DCDs as read, with their status; ``failure`` a validation or reconcile failure;
    ``waiting`` what else the reconciler waits for, one line each (listed before the children).
    """
    children, service_of = _services(dgd, dcds)
    lags = {name: _child_lag(dcd) for name, dcd in children.items()}
    entries = [*waiting]
    entries += [f"{name}: {lag}" for name, lag in lags.items() if lag is not None]
    if failure is not None:
        state, reason, message = GraphDeploymentState.FAILED, failure.reason, failure.message
    elif entries:
        state, reason = GraphDeploymentState.PENDING, Reasons.SOME_RESOURCES_NOT_READY
        message = _not_ready_message(entries)
    else:
        state, reason = GraphDeploymentState.SUCCESSFUL, Reasons.ALL_RESOURCES_READY
        message = ALL_RESOURCES_READY_MESSAGE
    successful = state == GraphDeploymentState.SUCCESSFUL
    ready = Verdict(
        ConditionStatus.TRUE if successful else ConditionStatus.FALSE,
        reason,
        _shorten(message, MAX_MESSAGE_LENGTH),
    )
    status: JsonDict = {
        "state": state.value,
        **observed_status(dgd, {ConditionTypes.READY: ready}, now),
    }
    summaries = {
        service_of[name]: _replica_summary((dcd.get("status") or {})["service"])
        for name, dcd in children.items()
        if dcd is not None and (dcd.get("status") or {}).get("service")
    }
    if summaries:
        status["services"] = dict(sorted(summaries.items()))
    services = (dgd.get("spec") or {}).get("services") or {}
    workers = {
        service_of[name]: WorkerRollout(changing=is_changing(dcd), done=lags[name] is None)
        for name, dcd in children.items()
        if is_worker(services.get(service_of[name]), dcd)
    }
    generation = (dgd.get("metadata") or {}).get("generation")
    rolling_update = derive_rolling_update(
        dgd.get("status"), generation if isinstance(generation, int) else None, state, workers, now
    )
    if rolling_update is not None:
        status["rollingUpdate"] = rolling_update
    return status


def is_progress_only(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """True when a pending graph's ``new`` status differs from ``old`` at most in how far it has
    got: the ``Ready`` message and the per-service replica counts. State, observed generation,
    the condition's status and reason, and ``rollingUpdate`` are the same (a planner waits on
    the rolling update's phase, so its changes are written at once). A first status saying the
    graph is pending is progress too: from nothing to on its way."""
    if new.get("state") != GraphDeploymentState.PENDING.value:
        return False
    return not old or differs_only_in_progress(old, new, ("services",))
