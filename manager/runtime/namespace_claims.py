"""Namespaces another process has claimed with a live marker Lease (`leaderelection.marker`).

A cluster-wide operator keeps out of a namespace while a Lease of the marker's name there is
live (`renewTime + leaseDurationSeconds` in the future; a Lease without either is not live). It
learns about markers from a Lease informer limited by a field selector to that one name, and it
notices expiry by time, not only by events: `run` sleeps until the next live marker would expire
and re-checks, so a namespace whose process died is resumed as soon as its marker expires.

Listeners hear every transition (`namespace, claimed`) once, when it happens; `ClaimAware`
wraps a reconciler so it does nothing in a claimed namespace.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
from anyio.abc import TaskStatus

from manager.runtime.cache import Cache
from manager.runtime.controller import Reconciler, Request, Result
from manager.runtime.kinds import LEASE
from manager.runtime.logging import get_logger

__all__ = ["ClaimAware", "NamespaceClaims", "lease_expiry"]

log = get_logger(__name__)

ClaimListener = Callable[[str, bool], None]


def lease_expiry(lease: Mapping[str, Any]) -> datetime | None:
    """When the Lease stops being live; None when it never was (no renewTime or duration)."""
    spec = lease.get("spec") or {}
    renewed, duration = spec.get("renewTime"), spec.get("leaseDurationSeconds")
    if not renewed or not duration:
        return None
    try:
        moment = datetime.fromisoformat(str(renewed).replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment + timedelta(seconds=float(duration))


class NamespaceClaims:
    """Which namespaces hold a live marker Lease named `lease_name`."""

    needs_leader_election = False

    def __init__(
        self, cache: Cache, *, lease_name: str, now: Callable[[], datetime] | None = None
    ) -> None:
        self.lease_name = lease_name
        self._now = now or (lambda: datetime.now(UTC))
        self._expiries: dict[str, datetime] = {}
        self._claimed: set[str] = set()
        self._listeners: list[ClaimListener] = []
        self._changed = anyio.Event()
        informer = cache.register(LEASE, field_selector=f"metadata.name={lease_name}")
        informer.add_event_handler(self)

    def add_listener(self, listener: ClaimListener) -> None:
        self._listeners.append(listener)

    def is_claimed(self, namespace: str) -> bool:
        expiry = self._expiries.get(namespace)
        return expiry is not None and expiry > self._now()

    @property
    def claimed(self) -> frozenset[str]:
        return frozenset(ns for ns in self._expiries if self.is_claimed(ns))

    # Informer event handler ---------------------------------------------------------------

    def on_add(self, obj: dict[str, Any], is_in_initial_list: bool = False) -> None:
        self._observe(obj)

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self._observe(new)

    def on_delete(self, obj: dict[str, Any]) -> None:
        self._expiries.pop(obj["metadata"].get("namespace") or "", None)
        self._settle()

    def _observe(self, lease: dict[str, Any]) -> None:
        namespace = lease["metadata"].get("namespace") or ""
        expiry = lease_expiry(lease)
        if expiry is None:
            self._expiries.pop(namespace, None)
        else:
            self._expiries[namespace] = expiry
        self._settle()

    # Transitions ------------------------------------------------------------------------

    def _settle(self) -> None:
        """Tell listeners about every namespace whose claim changed, and wake the timer."""
        claimed = self.claimed
        for namespace in sorted(claimed - self._claimed):
            log.info("namespace claimed by a namespace-restricted operator", namespace=namespace)
            self._notify(namespace, True)
        for namespace in sorted(self._claimed - claimed):
            log.info("namespace released by its namespace-restricted operator", namespace=namespace)
            self._notify(namespace, False)
        self._claimed = set(claimed)
        for namespace in [ns for ns, at in self._expiries.items() if at <= self._now()]:
            del self._expiries[namespace]
        self._changed.set()

    def _notify(self, namespace: str, claimed: bool) -> None:
        for listener in self._listeners:
            try:
                listener(namespace, claimed)
            except Exception:  # a listener bug must not stop the claims: a boundary
                log.exception("claim listener failed", namespace=namespace)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Re-check at each expiry, so a marker that stops being renewed releases its
        namespace when it expires, without waiting for an event."""
        task_status.started()
        while True:
            self._changed = anyio.Event()
            upcoming = [at for at in self._expiries.values() if at > self._now()]
            delay = (min(upcoming) - self._now()).total_seconds() if upcoming else None
            with anyio.move_on_after(delay if delay is not None else float("inf")):
                await self._changed.wait()
            self._settle()


@dataclass(frozen=True)
class ClaimAware:
    """`inner`, except that requests in a claimed namespace do nothing."""

    inner: Reconciler
    claims: NamespaceClaims

    async def reconcile(self, request: Request) -> Result | None:
        if self.claims.is_claimed(request.namespace):
            return None
        return await self.inner.reconcile(request)
