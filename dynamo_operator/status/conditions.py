"""Conditions with Kubernetes transition semantics, on wire dicts.

``lastTransitionTime`` records when a condition's *status* last flipped: a new reason or message
keeps the old time, so the time tells a user how long a component has been (not) ready. Times are
RFC 3339 in UTC at seconds precision with a ``Z`` suffix, exactly what the API server stores for a
``metav1.Time``, so a status read back from the server compares equal to the one derived again
and a reconciler at steady state has nothing to write. Every function returns new lists and dicts
and never mutates its input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from dynamo_operator.api import ConditionStatus

JsonDict = dict[str, Any]


def format_time(moment: datetime) -> str:
    """``2025-01-02T03:04:05Z``; a naive datetime is taken to be UTC (the process clock is not
    consulted, so the result never depends on the machine's time zone)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def find_condition(
    conditions: Sequence[Mapping[str, Any]] | None, condition_type: str
) -> Mapping[str, Any] | None:
    """The condition of this type, or None."""
    for condition in conditions or ():
        if condition.get("type") == condition_type:
            return condition
    return None


def is_condition_true(conditions: Sequence[Mapping[str, Any]] | None, condition_type: str) -> bool:
    condition = find_condition(conditions, condition_type)
    return condition is not None and condition.get("status") == ConditionStatus.TRUE


def set_condition(
    conditions: Sequence[Mapping[str, Any]] | None,
    *,
    type: str,
    status: ConditionStatus,
    reason: str,
    message: str,
    observed_generation: int | None,
    now: datetime,
) -> list[JsonDict]:
    """A new condition list with the condition of ``type`` set; others are kept as they are.

    The transition time is kept from the existing condition when ``status`` is unchanged, and is
    ``now`` otherwise. The list is sorted by type so its order never depends on history.
    """
    previous = find_condition(conditions, type)
    transition_time = (
        previous.get("lastTransitionTime")
        if previous is not None and previous.get("status") == status
        else None
    )
    condition: JsonDict = {"type": type, "status": ConditionStatus(status).value}
    if observed_generation is not None:
        condition["observedGeneration"] = observed_generation
    condition["lastTransitionTime"] = transition_time or format_time(now)
    condition["reason"] = reason
    condition["message"] = message
    others = [dict(existing) for existing in conditions or () if existing.get("type") != type]
    return sorted([*others, condition], key=lambda entry: str(entry.get("type")))


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one condition says: its status, and the reason and message why."""

    status: ConditionStatus
    reason: str
    message: str


def observed_status(
    obj: Mapping[str, Any], verdicts: Mapping[str, Verdict], now: datetime
) -> JsonDict:
    """The start of every kind's ``status``: ``observedGeneration`` (when the object has a
    generation) and ``conditions``, the object's own with each verdict set (by condition type)
    for that generation."""
    generation = (obj.get("metadata") or {}).get("generation")
    conditions = (obj.get("status") or {}).get("conditions")
    for condition_type, verdict in verdicts.items():
        conditions = set_condition(
            conditions,
            type=condition_type,
            status=verdict.status,
            reason=verdict.reason,
            message=verdict.message,
            observed_generation=generation,
            now=now,
        )
    status: JsonDict = {}
    if isinstance(generation, int):
        status["observedGeneration"] = generation
    status["conditions"] = conditions
    return status


def changed_condition(
    old_status: Mapping[str, Any] | None, new_status: Mapping[str, Any], condition_type: str
) -> Mapping[str, Any] | None:
    """The new condition of `condition_type` when its status or reason differs from the old
    one (a transition worth an Event), else None. A condition that first appears is a change."""
    new = find_condition(new_status.get("conditions"), condition_type)
    if new is None:
        return None
    old = find_condition((old_status or {}).get("conditions"), condition_type)
    if old is not None and (old.get("status"), old.get("reason")) == (
        new.get("status"),
        new.get("reason"),
    ):
        return None
    return new


def differs_only_in_progress(
    old: Mapping[str, Any] | None, new: Mapping[str, Any], progress_keys: Sequence[str]
) -> bool:
    """True when ``new`` equals ``old`` but for its conditions' messages and the top-level
    ``progress_keys`` (replica counts): how far the object has got, not where it stands."""
    return bool(old) and _without_progress(old or {}, progress_keys) == _without_progress(
        new, progress_keys
    )


def _without_progress(status: Mapping[str, Any], progress_keys: Sequence[str]) -> JsonDict:
    conditions = [
        {key: value for key, value in condition.items() if key != "message"}
        for condition in status.get("conditions") or ()
    ]
    skipped = {"conditions", *progress_keys}
    rest = {key: value for key, value in status.items() if key not in skipped}
    return {**rest, "conditions": conditions}
