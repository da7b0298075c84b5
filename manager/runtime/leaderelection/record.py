"""The leader-election record kept in a `coordination.k8s.io/v1` Lease's spec (pure helpers)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

__all__ = ["LeaseRecord", "format_micro_time"]


def format_micro_time(moment: datetime) -> str:
    """Kubernetes `MicroTime`: RFC 3339 with microseconds, in UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, slots=True)
class LeaseRecord:
    holder_identity: str
    lease_duration_seconds: int
    acquire_time: str | None
    renew_time: str | None
    lease_transitions: int

    @classmethod
    def from_lease(cls, lease: dict[str, Any]) -> LeaseRecord:
        spec = lease.get("spec") or {}
        return cls(
            holder_identity=spec.get("holderIdentity") or "",
            lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
            acquire_time=spec.get("acquireTime"),
            renew_time=spec.get("renewTime"),
            lease_transitions=int(spec.get("leaseTransitions") or 0),
        )

    def to_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "leaseDurationSeconds": self.lease_duration_seconds,
            "leaseTransitions": self.lease_transitions,
        }
        if self.holder_identity:
            spec["holderIdentity"] = self.holder_identity
        if self.acquire_time:
            spec["acquireTime"] = self.acquire_time
        if self.renew_time:
            spec["renewTime"] = self.renew_time
        return spec

    def taken_by(self, identity: str, lease_duration_seconds: int, now: str) -> LeaseRecord:
        """The record after `identity` acquires (or, if it holds it already, renews) the lease."""
        if self.holder_identity == identity:
            return replace(self, lease_duration_seconds=lease_duration_seconds, renew_time=now)
        return LeaseRecord(
            holder_identity=identity,
            lease_duration_seconds=lease_duration_seconds,
            acquire_time=now,
            renew_time=now,
            lease_transitions=self.lease_transitions + 1,
        )

    def released(self, now: str) -> LeaseRecord:
        """An empty holder with a one-second lease: any candidate may take it at its next try."""
        return LeaseRecord("", 1, now, now, self.lease_transitions)
