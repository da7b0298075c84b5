"""The Event a status write announces: one only on a transition of a kind's main condition.

A reconciler derives the status, writes it if it changed, then asks `derive_transition_event`
whether the change is worth an Event. The condition turning true is a Normal Event; turning
false or changing reason is a Warning, except, for kinds that wait (`warn_while_waiting=False`),
while an object that was never ready is still on its way (each step of a rollout is not a
warning): then only a failure warns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from dynamo_operator.status.conditions import changed_condition, is_condition_true

__all__ = ["Event", "TransitionEvents", "derive_transition_event"]


@dataclass(frozen=True, slots=True)
class Event:
    """An Event for a reconciler to record on its object."""

    type: Literal["Normal", "Warning"]
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class TransitionEvents:
    """How one kind announces the transitions of its main condition."""

    condition: str
    ready_reason: str | None = None
    """The Normal Event's reason; None: the condition's own (renamed by `event_reasons`)."""
    ready_message: str | None = None
    """The Normal Event's message; None: the condition's own."""
    event_reasons: Mapping[str, str] = field(default_factory=dict)
    """Event reasons where they differ from the condition's reason."""
    warn_while_waiting: bool = True


def derive_transition_event(
    old_status: Mapping[str, Any] | None,
    new_status: Mapping[str, Any],
    events: TransitionEvents,
    *,
    failed: bool,
    announce_ready: bool = True,
) -> Event | None:
    """The Event for going from `old_status` to `new_status`, or None when there is none.
    `failed`: the new status reports a failure (invalid spec, reconcile error);
    `announce_ready`: False when another object's Event says it (a graph's, for its
    components), so becoming ready makes none here."""
    changed = changed_condition(old_status, new_status, events.condition)
    if changed is None:
        return None
    reason = str(changed.get("reason") or "")
    reason = events.event_reasons.get(reason, reason)
    message = str(changed.get("message") or "")
    if changed.get("status") == "True":
        if not announce_ready:
            return None
        return Event("Normal", events.ready_reason or reason, events.ready_message or message)
    was_true = is_condition_true((old_status or {}).get("conditions"), events.condition)
    if not (events.warn_while_waiting or failed or was_true):
        return None
    return Event("Warning", reason, message)
