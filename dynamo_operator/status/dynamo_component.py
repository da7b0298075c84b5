"""The status of a DynamoComponent, derived from what the controller observed of its image.

Four conditions, upstream's types: ``ImageExistsChecked`` (did the registry answer?),
``ImageExists`` (its message is the image, as upstream wrote it), ``ImageBuilding`` and
``DynamoComponentAvailable``, the verdict a graph waits for. ``status.image`` is set while the
component is available. Every not-available reason says why: the registry could not be asked,
the build has not started, is pending, is running, failed (with the Job's message and the
builder's last log lines) or ran out of time. A spec ``image`` skips all of it: the image is
taken as given.

``dynamo_component_gate`` is the graph's side: whether a graph naming the component may deploy,
must wait (one line for ``derive_graph_status(waiting=...)``) or has failed with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Final

from dynamo_operator.api import ConditionStatus
from dynamo_operator.status.conditions import (
    JsonDict,
    Verdict,
    find_condition,
    observed_status,
)
from dynamo_operator.status.events import TransitionEvents
from dynamo_operator.status.failure import StatusFailure
from dynamo_operator.status.reasons import ConditionTypes, Reasons

MAX_LOG_TAIL: Final = 1024
"""Characters of the builder's log kept in a condition message (its end: where the error is)."""
TERMINAL_REASONS: Final = frozenset(
    {Reasons.BUILD_FAILED, Reasons.BUILD_TIMED_OUT, Reasons.VALIDATION_FAILED}
)
"""Reasons a component stays unavailable for until its spec (or the artifact) changes."""
DYNAMO_COMPONENT_EVENTS: Final = TransitionEvents(
    condition=ConditionTypes.COMPONENT_AVAILABLE, warn_while_waiting=False
)
"""How the controller announces transitions (``derive_transition_event``)."""


class BuildJobState(StrEnum):
    NONE = "none"
    """No builder Job of the current inputs exists."""
    PENDING = "pending"
    """The Job exists and has no running pod yet."""
    ACTIVE = "active"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class ImageObservation:
    """What the controller found out this pass."""

    image: str
    """The component's image (``component_image``)."""
    image_given: bool = False
    """``spec.image`` is set: nothing is checked or built."""
    image_exists: bool | None = None
    """The registry's answer; None when not asked (yet) or it could not answer."""
    registry_error: str | None = None
    """Why the registry could not answer."""
    job_name: str | None = None
    job_state: BuildJobState = BuildJobState.NONE
    job_message: str = ""
    """The failed Job's condition message (e.g. ``BackoffLimitExceeded: ...``)."""
    log_tail: str = ""
    """The builder's (or downloader's) last log lines, for a failed build."""
    timed_out: bool = False
    """The Job failed because it ran past its deadline (reason ``DeadlineExceeded``)."""


_TRUE, _FALSE, _UNKNOWN = ConditionStatus.TRUE, ConditionStatus.FALSE, ConditionStatus.UNKNOWN


def _failure_message(observation: ImageObservation) -> str:
    job = observation.job_name or "the image builder job"
    if observation.timed_out:
        message = f"{job} ran past the build timeout"
    else:
        message = f"{job} failed" + (
            f": {observation.job_message}" if observation.job_message else ""
        )
    tail = observation.log_tail.strip()
    if tail:
        message += f"; last log lines: {tail[-MAX_LOG_TAIL:]}"
    return message


def _check_verdict(observation: ImageObservation) -> Verdict:
    if observation.image_exists is not None:
        found = Reasons.IMAGE_FOUND if observation.image_exists else Reasons.IMAGE_NOT_FOUND
        return Verdict(_TRUE, found, observation.image)
    if observation.registry_error:
        return Verdict(_FALSE, Reasons.REGISTRY_CHECK_FAILED, observation.registry_error)
    return Verdict(_UNKNOWN, Reasons.CHECKING_IMAGE, f"checking {observation.image}")


_Verdicts = tuple[Verdict, Verdict, Verdict]
"""ImageExists, ImageBuilding and DynamoComponentAvailable."""


def _image_ready(observation: ImageObservation) -> _Verdicts:
    image = observation.image
    if observation.job_state is BuildJobState.SUCCEEDED:
        built = f"{observation.job_name} built and pushed {image}"
        reason, building = Reasons.BUILD_SUCCEEDED, Verdict(_FALSE, Reasons.BUILD_SUCCEEDED, built)
    else:
        reason = Reasons.IMAGE_FOUND
        building = Verdict(_FALSE, reason, "the image exists; nothing to build")
    return Verdict(_TRUE, reason, image), building, Verdict(_TRUE, reason, image)


def _image_missing(observation: ImageObservation) -> _Verdicts:
    image, job, state = observation.image, observation.job_name, observation.job_state
    missing = Verdict(_FALSE, Reasons.IMAGE_NOT_FOUND, f"{image} is not in the registry")
    if state is BuildJobState.FAILED:
        reason = Reasons.BUILD_TIMED_OUT if observation.timed_out else Reasons.BUILD_FAILED
        failed = Verdict(_FALSE, reason, _failure_message(observation))
        return missing, failed, failed
    if state is BuildJobState.ACTIVE:
        message = f"{job} is building {image}"
        return (
            missing,
            Verdict(_TRUE, Reasons.BUILDING, message),
            Verdict(_FALSE, Reasons.BUILDING, message),
        )
    if state is BuildJobState.PENDING:
        pending = Verdict(_FALSE, Reasons.BUILD_PENDING, f"{job} is waiting for its pod")
        return missing, pending, pending
    if observation.image_exists is None:
        check = _check_verdict(observation)
        not_checked = Verdict(_FALSE, Reasons.BUILD_NOT_STARTED, "the image is not checked yet")
        return (
            Verdict(_UNKNOWN, check.reason, check.message),
            not_checked,
            Verdict(_FALSE, check.reason, check.message),
        )
    starting = f"a build of {image} is starting"
    return (
        missing,
        Verdict(_FALSE, Reasons.BUILD_NOT_STARTED, starting),
        Verdict(_FALSE, Reasons.IMAGE_NOT_FOUND, starting),
    )


def _build_verdicts(observation: ImageObservation) -> _Verdicts:
    if observation.image_exists or observation.job_state is BuildJobState.SUCCEEDED:
        return _image_ready(observation)
    return _image_missing(observation)


def _given_verdicts(observation: ImageObservation) -> dict[str, Verdict]:
    given = Reasons.IMAGE_GIVEN
    return {
        ConditionTypes.IMAGE_EXISTS_CHECKED: Verdict(_FALSE, given, "spec.image is used as given"),
        ConditionTypes.IMAGE_EXISTS: Verdict(_TRUE, given, observation.image),
        ConditionTypes.IMAGE_BUILDING: Verdict(_FALSE, given, "spec.image: nothing to build"),
        ConditionTypes.COMPONENT_AVAILABLE: Verdict(_TRUE, given, observation.image),
    }


def derive_dynamo_component_status(
    component: Mapping[str, Any],
    observation: ImageObservation | None,
    now: datetime,
    *,
    failure: StatusFailure | None = None,
) -> JsonDict:
    """The DynamoComponent's whole ``status`` (wire form). ``component`` is the object as read
    (its conditions give the transition times). ``failure`` (invalid spec, no registry
    configured, an API error) makes it unavailable with that reason and leaves the other
    conditions as they were; ``observation`` may then be None."""
    if failure is not None:
        unavailable = Verdict(_FALSE, failure.reason, failure.message)
        verdicts = {ConditionTypes.COMPONENT_AVAILABLE: unavailable}
    elif observation is None:
        raise ValueError("an observation is needed when there is no failure")
    elif observation.image_given:
        verdicts = _given_verdicts(observation)
    else:
        exists, building, available = _build_verdicts(observation)
        verdicts = {
            ConditionTypes.IMAGE_EXISTS_CHECKED: _check_verdict(observation),
            ConditionTypes.IMAGE_EXISTS: exists,
            ConditionTypes.IMAGE_BUILDING: building,
            ConditionTypes.COMPONENT_AVAILABLE: available,
        }
    status = observed_status(component, verdicts, now)
    main = find_condition(status["conditions"], ConditionTypes.COMPONENT_AVAILABLE) or {}
    if main.get("status") == _TRUE and observation is not None and failure is None:
        status["image"] = observation.image
    return status


@dataclass(frozen=True, slots=True)
class ComponentGate:
    """What a graph naming a DynamoComponent may do."""

    image: str | None = None
    """The image to deploy: set exactly when the component is available."""
    waiting: str | None = None
    """Why the graph waits, one line for ``derive_graph_status(waiting=...)``."""
    failure: StatusFailure | None = None
    """Set when the component failed for good (until its spec or the graph's tag changes)."""


def dynamo_component_gate(name: str, component: Mapping[str, Any] | None) -> ComponentGate:
    """The gate of DynamoComponent ``name`` as read (None: not created yet). Its status must
    describe its current generation, else the graph waits for the controller to catch up."""
    prefix = f"DynamoComponent {name}"
    if component is None:
        return ComponentGate(waiting=f"{prefix}: not created yet")
    status: Mapping[str, Any] = component.get("status") or {}
    generation = (component.get("metadata") or {}).get("generation")
    if status.get("observedGeneration") is None or (
        generation is not None and status.get("observedGeneration") != generation
    ):
        return ComponentGate(waiting=f"{prefix}: not reconciled yet")
    available = find_condition(status.get("conditions"), ConditionTypes.COMPONENT_AVAILABLE) or {}
    if available.get("status") == _TRUE and status.get("image"):
        return ComponentGate(image=str(status["image"]))
    message = f"{prefix}: {available.get('message') or 'not available'}"
    if available.get("reason") in TERMINAL_REASONS:
        return ComponentGate(failure=StatusFailure(Reasons.DYNAMO_COMPONENT_NOT_READY, message))
    return ComponentGate(waiting=message)
