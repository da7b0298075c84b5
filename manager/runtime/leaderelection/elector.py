"""Leader election on a `coordination.k8s.io/v1` Lease, with client-go's algorithm and defaults.

Every `retry_period` a candidate reads the Lease. It may take the lease when it is free (no
holder, e.g. after a release) or when the record has not changed for `lease_duration` as measured
on the candidate's own monotonic clock since it last saw it change: clocks of different nodes are
never compared. Writes are PUTs guarded by the Lease's resourceVersion, so two candidates cannot
both win a round. The leader renews every `retry_period`; if no renewal succeeds within
`renew_deadline` it stops being the leader (`hold` returns) before anyone else can take over,
because `renew_deadline < lease_duration`. `release` hands the lease over at once.
"""

from __future__ import annotations

import random
import socket
import uuid
from datetime import UTC, datetime
from typing import Any

import anyio
from prometheus_client import Gauge

from manager.runtime.client.errors import Conflict, KubeError, NotFound
from manager.runtime.client.rest import RestClient
from manager.runtime.clock import Clock, RealClock
from manager.runtime.identity import Identity
from manager.runtime.kinds import LEASE
from manager.runtime.leaderelection.record import LeaseRecord, format_micro_time
from manager.runtime.logging import get_logger
from manager.runtime.process_owner import ProcessOwner, owned_metadata

__all__ = ["LEADER_STATUS", "LeaderElector", "default_holder_identity"]

log = get_logger(__name__)

LEADER_STATUS = Gauge(
    "leader_election_master_status",
    "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, "
    "1 indicates master. 'name' is the string used to identify the lease.",
    ["name"],
)

JITTER_FACTOR = 1.2


def default_holder_identity() -> str:
    """`<hostname>_<uuid>`, as controller-runtime: the host name (the pod name in a cluster)
    says which replica holds the lease, and the UUID makes every process a new candidate, so a
    restarted container never mistakes its predecessor's lease for its own."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


class LeaderElector:
    """Competes for the Lease `namespace/name` (both chosen by the composition root), writing it
    with `identity.leader_election_field_manager`, as `holder_identity`."""

    def __init__(
        self,
        api: Any,
        identity: Identity,
        *,
        name: str,
        namespace: str,
        holder_identity: str | None = None,
        lease_duration: float = 15.0,
        renew_deadline: float = 10.0,
        retry_period: float = 2.0,
        clock: Clock | None = None,
        owner: ProcessOwner | None = None,
    ) -> None:
        if not lease_duration > renew_deadline > JITTER_FACTOR * retry_period > 0:
            raise ValueError("need lease_duration > renew_deadline > 1.2 * retry_period > 0")
        self._rest = RestClient.for_api(api)
        self.name = name
        self.namespace = namespace
        self.holder_identity = holder_identity or default_holder_identity()
        self._field_manager = identity.leader_election_field_manager
        self.lease_duration = lease_duration
        self.renew_deadline = renew_deadline
        self.retry_period = retry_period
        self._clock = clock or RealClock()
        self._owner = owner
        self._is_leader = False
        self._observed: LeaseRecord | None = None
        self._observed_at = 0.0
        self._metadata: dict[str, Any] = {}
        """The lease's metadata as last read or written (without managedFields): a PUT carries it
        back, so owner references, labels and annotations others set on the Lease survive."""
        LEADER_STATUS.labels(name).set(0)

    @property
    def is_leader(self) -> bool:
        return self._is_leader

    async def acquire(self) -> None:
        """Return once this process holds the lease (retrying every `retry_period`, jittered)."""
        log.info(
            "attempting to acquire leader lease",
            lease=self._lease_name,
            identity=self.holder_identity,
        )
        while not await self._try_acquire_or_renew():
            await self._sleep(self.retry_period * (1.0 + JITTER_FACTOR * random.random()))
        self._set_leader(True)
        log.info("acquired leader lease", lease=self._lease_name, identity=self.holder_identity)

    async def hold(self) -> None:
        """Renew the lease until a renewal fails for `renew_deadline`; return when leadership
        is lost. Cancel it to stop renewing (then call `release`)."""
        while True:
            await self._sleep(self.retry_period)
            renewed = False
            with anyio.move_on_after(self.renew_deadline):
                while not (renewed := await self._try_acquire_or_renew()):
                    await self._sleep(self.retry_period)
            if not renewed:
                self._set_leader(False)
                log.warning(
                    "leader lease lost", lease=self._lease_name, identity=self.holder_identity
                )
                return

    async def release(self) -> None:
        """Clear the holder so another candidate takes over at its next try, not after the lease
        expires. Best effort: if the lease moved on meanwhile, there is nothing to release.

        A renewal cancelled mid-flight (the usual way `hold` stops) may have landed without this
        process seeing its answer, so the resourceVersion it knows can be one behind: on a
        Conflict it reads the lease again and releases it if it still holds it."""
        if not self._is_leader or self._observed is None:
            return
        self._set_leader(False)
        with anyio.move_on_after(self.renew_deadline, shield=True):
            try:
                while not await self._put_released():
                    if not await self._still_held():
                        return
                log.info(
                    "released leader lease", lease=self._lease_name, identity=self.holder_identity
                )
            except KubeError as error:
                log.warning(
                    "could not release leader lease", lease=self._lease_name, err=str(error)
                )

    async def _put_released(self) -> bool:
        """False when the write raced another one (Conflict)."""
        assert self._observed is not None
        try:
            await self._put(self._observed.released(self._now()))
        except Conflict:
            return False
        return True

    async def _still_held(self) -> bool:
        """Re-read the lease: True (with its record and resourceVersion remembered) when this
        process is still the holder."""
        lease = await self._rest.get(LEASE, self.namespace, self.name)
        current = LeaseRecord.from_lease(lease)
        if current.holder_identity != self.holder_identity:
            return False
        self._observed = current
        self._keep_metadata(lease)
        return True

    async def _try_acquire_or_renew(self) -> bool:
        try:
            lease = await self._rest.get(LEASE, self.namespace, self.name)
        except NotFound:
            return await self._create()
        except KubeError as error:
            log.info("reading leader lease failed", lease=self._lease_name, err=str(error))
            return False
        current = LeaseRecord.from_lease(lease)
        self._keep_metadata(lease)
        if current != self._observed:
            self._observed, self._observed_at = current, self._clock.now()
        held_by_other = current.holder_identity not in ("", self.holder_identity)
        expired = self._observed_at + current.lease_duration_seconds <= self._clock.now()
        if held_by_other and not expired:
            return False
        try:
            await self._put(
                current.taken_by(self.holder_identity, self._lease_seconds, self._now())
            )
        except KubeError as error:  # a Conflict means another candidate won this round
            log.debug("leader lease update failed", lease=self._lease_name, err=str(error))
            return False
        return True

    async def _create(self) -> bool:
        record = LeaseRecord(self.holder_identity, self._lease_seconds, self._now(), self._now(), 0)
        # Owned by the installation, the garbage collector removes it with it.
        metadata = await owned_metadata(
            self._owner, {"name": self.name, "namespace": self.namespace}
        )
        lease = {
            "apiVersion": LEASE.api_version,
            "kind": LEASE.kind,
            "metadata": metadata,
            "spec": record.to_spec(),
        }
        try:
            created = await self._rest.create(LEASE, lease, field_manager=self._field_manager)
        except KubeError:  # AlreadyExists: another candidate created it first
            return False
        self._remember(record, created)
        return True

    async def _put(self, record: LeaseRecord) -> None:
        lease = {
            "apiVersion": LEASE.api_version,
            "kind": LEASE.kind,
            "metadata": {**self._metadata, "name": self.name, "namespace": self.namespace},
            "spec": record.to_spec(),
        }
        updated = await self._rest.replace(LEASE, lease, field_manager=self._field_manager)
        self._remember(record, updated)

    def _remember(self, record: LeaseRecord, lease: dict[str, Any]) -> None:
        self._observed, self._observed_at = record, self._clock.now()
        self._keep_metadata(lease)

    def _keep_metadata(self, lease: dict[str, Any]) -> None:
        self._metadata = {k: v for k, v in lease["metadata"].items() if k != "managedFields"}

    def _set_leader(self, leader: bool) -> None:
        self._is_leader = leader
        LEADER_STATUS.labels(self.name).set(1 if leader else 0)

    async def _sleep(self, seconds: float) -> None:
        await self._clock.sleep_until(self._clock.now() + seconds)

    @property
    def _lease_seconds(self) -> int:
        return max(1, round(self.lease_duration))

    @property
    def _lease_name(self) -> str:
        return f"{self.namespace}/{self.name}"

    @staticmethod
    def _now() -> str:
        return format_micro_time(datetime.now(UTC))
