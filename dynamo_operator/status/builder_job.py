"""Where an image builder Job stands, read from the Job and its pods as the API server reports
them: pending, active, succeeded or failed (with why, whether it ran out of time, and the
builder's last log lines, which the containers' ``FallbackToLogsOnError`` termination message
carries, so no log request is needed)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dynamo_operator.status.dynamo_component import BuildJobState

__all__ = ["BuilderJobState", "observe_builder_job"]


@dataclass(frozen=True, slots=True)
class BuilderJobState:
    state: BuildJobState
    message: str = ""
    """The Job's ``Failed`` condition as ``reason: message``."""
    timed_out: bool = False
    log_tail: str = ""


def observe_builder_job(
    job: Mapping[str, Any] | None, pods: Iterable[Mapping[str, Any]] = ()
) -> BuilderJobState:
    """The state of ``job`` (None: there is none); ``pods`` are its pods, read only to say why
    it failed."""
    if job is None:
        return BuilderJobState(BuildJobState.NONE)
    status: Mapping[str, Any] = job.get("status") or {}
    conditions = {
        c.get("type"): c for c in status.get("conditions") or () if c.get("status") == "True"
    }
    if "Complete" in conditions or (status.get("succeeded") or 0) > 0:
        return BuilderJobState(BuildJobState.SUCCEEDED)
    if failed := conditions.get("Failed"):
        reason = str(failed.get("reason") or "Failed")
        message = f"{reason}: {failed.get('message')}" if failed.get("message") else reason
        return BuilderJobState(
            BuildJobState.FAILED,
            message,
            timed_out=reason == "DeadlineExceeded",
            log_tail=_termination_messages(pods),
        )
    if (status.get("active") or 0) > 0 and (status.get("ready") or 0) > 0:
        return BuilderJobState(BuildJobState.ACTIVE)
    if (status.get("active") or 0) > 0 and _running(pods):
        return BuilderJobState(BuildJobState.ACTIVE)
    return BuilderJobState(BuildJobState.PENDING)


def _running(pods: Iterable[Mapping[str, Any]]) -> bool:
    return any((pod.get("status") or {}).get("phase") == "Running" for pod in pods)


def _termination_messages(pods: Iterable[Mapping[str, Any]]) -> str:
    """The termination messages of the containers that failed, init containers first."""
    lines: list[str] = []
    for pod in pods:
        status: Mapping[str, Any] = pod.get("status") or {}
        for key in ("initContainerStatuses", "containerStatuses"):
            for container in status.get(key) or ():
                terminated = (container.get("state") or {}).get("terminated") or {}
                if terminated.get("exitCode") and (message := terminated.get("message")):
                    lines.append(f"[{container.get('name')}] {str(message).strip()}")
    return "\n".join(lines)
