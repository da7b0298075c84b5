"""A Lease that says "this namespace is taken": held while the process runs, deleted when it stops.

Not an election: one process writes it and nobody competes for it. Others read it
(`manager.runtime.namespace_claims`) and keep out of the namespace while it is live, i.e. while
`renewTime + leaseDurationSeconds` lies in the future.

- Written at start (created or taken over) with `renewTime` set, so it is live from its first
  write; the process does not start when that write fails (`LeaseMarkerLostError`, e.g. when
  its Role does not allow it: one log line and exit 1, not a traceback).
- Renewed every `renew_interval` with a server-side apply (one request; it also re-creates a
  Lease someone deleted).
- Split-brain guard: when no renewal has succeeded for `duration - renew_interval` (failed or still
  hanging: each attempt is cut off at that point), `run` raises `LeaseMarkerLostError` so the
  process exits *before* the Lease can expire and another process moves into the namespace while
  this one still acts there.
- Deleted on a clean stop (cancellation), within a few seconds, so the namespace is released at
  once rather than when the Lease expires.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import anyio
from anyio.abc import TaskStatus

from manager.runtime.client.errors import KubeError, NotFound
from manager.runtime.client.rest import RestClient
from manager.runtime.clock import Clock, RealClock
from manager.runtime.identity import Identity
from manager.runtime.kinds import LEASE
from manager.runtime.leaderelection.errors import LeaseMarkerLostError
from manager.runtime.leaderelection.record import format_micro_time
from manager.runtime.logging import get_logger
from manager.runtime.process_owner import ProcessOwner, owned_metadata

__all__ = [
    "LeaseMarker",
]

log = get_logger(__name__)

DELETE_TIMEOUT = 5.0


class LeaseMarker:
    needs_leader_election = False

    def __init__(
        self,
        api: Any,
        identity: Identity,
        *,
        name: str,
        namespace: str,
        holder_identity: str,
        duration: float,
        renew_interval: float,
        clock: Clock | None = None,
        owner: ProcessOwner | None = None,
    ) -> None:
        if duration <= 0 or renew_interval <= 0 or renew_interval >= duration:
            raise ValueError("the renew interval must be positive and shorter than the duration")
        self._rest = RestClient.for_api(api)
        self._field_manager = identity.leader_election_field_manager
        self.name = name
        self.namespace = namespace
        self.holder_identity = holder_identity
        self.duration = duration
        self.renew_interval = renew_interval
        self._clock = clock or RealClock()
        self._owner = owner
        self._acquired = format_micro_time(datetime.now(UTC))

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        try:
            await self.renew()
        except KubeError as error:
            raise LeaseMarkerLostError(
                f"Lease {self.namespace}/{self.name} not written at start: {error}"
            ) from error
        log.info("namespace marker written", namespace=self.namespace, lease=self.name)
        task_status.started()
        try:
            await self._keep_renewing()
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(DELETE_TIMEOUT):
                await self._delete()

    async def renew(self) -> None:
        """Write the Lease as live from now (creating it when it is missing)."""
        now = format_micro_time(datetime.now(UTC))
        # Owned by the installation: collected with it, also if a stop cannot delete it.
        metadata = await owned_metadata(
            self._owner, {"name": self.name, "namespace": self.namespace}
        )
        lease = {
            "apiVersion": LEASE.api_version,
            "kind": LEASE.kind,
            "metadata": metadata,
            "spec": {
                "holderIdentity": self.holder_identity,
                "leaseDurationSeconds": max(1, round(self.duration)),
                "acquireTime": self._acquired,
                "renewTime": now,
            },
        }
        await self._rest.apply(LEASE, lease, field_manager=self._field_manager, force=True)

    async def _keep_renewing(self) -> None:
        give_up_at = self._clock.now() + self.duration - self.renew_interval
        failures = 0
        while True:
            await self._clock.sleep_until(self._clock.now() + self.renew_interval)
            error: KubeError | None = None
            with anyio.move_on_after(max(0.0, give_up_at - self._clock.now())):
                try:
                    await self.renew()
                    give_up_at = self._clock.now() + self.duration - self.renew_interval
                    failures = 0
                    continue
                except KubeError as failed:
                    error = failed
            failures += 1
            log.warning(
                "namespace marker renewal failed",
                namespace=self.namespace,
                failures=failures,
                error=str(error) if error else "no answer in time",
            )
            if self._clock.now() >= give_up_at:
                raise LeaseMarkerLostError(
                    f"Lease {self.namespace}/{self.name} not renewed for "
                    f"{self.duration - self.renew_interval:g}s ({failures} attempts failed): "
                    "stopping before it expires"
                ) from error

    async def _delete(self) -> None:
        try:
            await self._rest.delete(LEASE, self.namespace, self.name)
            log.info("namespace marker deleted", namespace=self.namespace, lease=self.name)
        except NotFound:
            pass
        except KubeError as error:
            log.warning("namespace marker not deleted", namespace=self.namespace, error=str(error))
