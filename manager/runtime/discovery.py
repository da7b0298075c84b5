"""API discovery through the REST client: which kinds and API group-versions the cluster serves.

Discovery requests go through `RestClient`, so they are metered like every other request and fail
with the client's `KubeError`s.

- `Discovery.resolve(api_version, kind)`: one GET of the group-version document, cached; a miss
  refreshes it once (a CRD installed since the last look), then raises `KindNotFoundError`.
- `RequiredKinds`: a runnable that reports started only once the API server answers and serves
  every kind the process cannot work without (its CRDs); until then it says why in one log line
  (again only when the reason changes), so a missing CRD or an unreachable server never floods
  the log, and whatever starts after it waits.
- `ServedApis`: which of a set of optional group-versions (LeaderWorkerSet, Volcano, ...) the
  cluster serves now. It is checked at start-up, again at once (at most every
  `SOONEST_RECHECK` seconds) when a reconciler needs one it lacks (`recheck_soon`), and every
  `DEFAULT_RECHECK_INTERVAL` seconds otherwise, so a CRD installed after the operator started is
  picked up without a restart as soon as something needs it, and one removed within minutes;
  listeners hear about changes. (Polling every 30 s was 9 of the 9,010 requests of a
  500-graph convergence in `bench/converge.py`, and up to 30 s of waiting for a graph that
  needed a CRD just installed.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import anyio
from anyio.abc import TaskStatus

from manager.runtime.backoff import Backoff
from manager.runtime.client.errors import KindNotFoundError, KubeError, NotFound
from manager.runtime.client.kind_registry import KindRegistry
from manager.runtime.client.rest import RestClient
from manager.runtime.clock import Clock, RealClock
from manager.runtime.kinds import ResourceKind
from manager.runtime.logging import get_logger

__all__ = [
    "DEFAULT_RECHECK_INTERVAL",
    "SOONEST_RECHECK",
    "Discovery",
    "RequiredKinds",
    "ServedApis",
]

DEFAULT_RECHECK_INTERVAL = 300.0
SOONEST_RECHECK = 30.0

log = get_logger(__name__)


class Discovery:
    """Resolves kinds and lists served group-versions; fills a `KindRegistry` as it goes."""

    def __init__(self, rest: RestClient, registry: KindRegistry | None = None) -> None:
        self.rest = rest
        self.registry = registry if registry is not None else KindRegistry()
        self._documents: dict[str, list[dict[str, Any]]] = {}
        self._lock = anyio.Lock()

    async def resolve(self, api_version: str, kind: str) -> ResourceKind:
        """The kind as served; `KindNotFoundError` when the cluster does not serve it."""
        if known := self.registry.get(api_version, kind):
            return known
        for refresh in (False, True):
            for resource in await self._resources(api_version, refresh=refresh):
                if resource.get("kind") == kind and "/" not in str(resource.get("name")):
                    found = ResourceKind(
                        api_version, kind, str(resource["name"]), bool(resource.get("namespaced"))
                    )
                    self.registry.add(found)
                    return found
        raise KindNotFoundError(
            f"kind {kind} is not served in {api_version} (is its CRD installed?)"
        )

    async def resolve_all(self, kinds: Iterable[tuple[str, str]]) -> list[ResourceKind]:
        """Resolve every `(apiVersion, kind)`; one error naming every kind that is missing."""
        resolved: list[ResourceKind] = []
        missing: list[str] = []
        for api_version, kind in kinds:
            try:
                resolved.append(await self.resolve(api_version, kind))
            except KindNotFoundError:
                missing.append(f"{kind}.{api_version}")
        if missing:
            raise KindNotFoundError(
                f"the API server does not serve {', '.join(missing)} (are the CRDs installed?)"
            )
        return resolved

    async def served_group_versions(self) -> frozenset[str]:
        """Every `group/version` the API server serves now (`v1` for the core group)."""
        document = await self.rest.get_path("/apis")
        served = {"v1"}
        for group in document.get("groups") or ():
            for version in group.get("versions") or ():
                if group_version := version.get("groupVersion"):
                    served.add(str(group_version))
        return frozenset(served)

    async def _resources(self, api_version: str, *, refresh: bool) -> list[dict[str, Any]]:
        if not refresh and api_version in self._documents:
            return self._documents[api_version]
        async with self._lock:
            base = "/apis" if "/" in api_version else "/api"
            try:
                document = await self.rest.get_path(f"{base}/{api_version}")
            except NotFound:
                document = {}
            self._documents[api_version] = list(document.get("resources") or ())
        return self._documents[api_version]


class RequiredKinds:
    """Started once every kind of `kinds` is served (see the module doc)."""

    needs_leader_election = False

    def __init__(
        self,
        discovery: Discovery,
        kinds: Iterable[ResourceKind],
        *,
        backoff: Backoff | None = None,
    ) -> None:
        self._discovery = discovery
        self._kinds = tuple(kinds)
        self._backoff = backoff or Backoff(RealClock(), initial=1.0, cap=30.0)
        self.served = False

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        reported: str | None = None
        while True:
            try:
                await self._discovery.resolve_all((k.api_version, k.kind) for k in self._kinds)
                break
            except KubeError as error:
                reason = str(error)
                if reason != reported:
                    log.error("waiting for the API server", error=reason)
                    reported = reason
                await self._backoff.wait()
        self.served = True
        log.info("API server serves every required kind", kinds=[str(k) for k in self._kinds])
        task_status.started()
        await anyio.sleep_forever()


ServedApisListener = Callable[[frozenset[str]], None]


class ServedApis:
    """Which of `group_versions` the cluster serves, kept current by `run`.

    `present` is empty until the first check. `run` checks at once (reporting started after the
    first successful check), then every `interval` seconds, or `soonest` seconds after the last
    check when `recheck_soon` was called meanwhile; a failed check keeps the last answer and is
    retried at the next one. Listeners are called with the new set on every change.
    """

    needs_leader_election = False

    def __init__(
        self,
        discovery: Discovery,
        group_versions: Iterable[str],
        *,
        interval: float = DEFAULT_RECHECK_INTERVAL,
        soonest: float = SOONEST_RECHECK,
        clock: Clock | None = None,
    ) -> None:
        self._discovery = discovery
        self.group_versions = frozenset(group_versions)
        self.present: frozenset[str] = frozenset()
        self._interval = interval
        self._soonest = min(soonest, interval)
        self._clock = clock or RealClock()
        self._listeners: list[ServedApisListener] = []
        self._asked: anyio.Event | None = None
        """Set by `recheck_soon` since the last check began (made by `run`, in its loop)."""

    def add_listener(self, listener: ServedApisListener) -> None:
        self._listeners.append(listener)

    def serves(self, group_version: str) -> bool:
        return group_version in self.present

    def recheck_soon(self) -> None:
        """Something needs an optional API the cluster did not serve at the last check: check
        again now, or `soonest` seconds after the last check."""
        if self._asked is not None:
            self._asked.set()

    async def refresh(self) -> bool:
        """Check now; True when the answer changed."""
        present = self.group_versions & await self._discovery.served_group_versions()
        if present == self.present:
            return False
        added, removed = sorted(present - self.present), sorted(self.present - present)
        self.present = present
        log.info("served APIs changed", added=added, removed=removed)
        for listener in self._listeners:
            listener(present)
        return True

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        asked = self._asked = anyio.Event()
        checked_at = self._clock.now()
        await self.refresh()
        task_status.started()
        while True:
            await self._next_check(checked_at, asked)
            asked = self._asked = anyio.Event()
            checked_at = self._clock.now()
            try:
                await self.refresh()
            except KubeError as error:
                log.warning("API discovery failed; keeping the last answer", error=str(error))

    async def _next_check(self, checked_at: float, asked: anyio.Event) -> None:
        """Return when the next check is due: `interval` after `checked_at`, or `soonest` after
        it once `asked`."""
        async with anyio.create_task_group() as group:

            async def when_asked() -> None:
                await asked.wait()
                await self._clock.sleep_until(checked_at + self._soonest)
                group.cancel_scope.cancel()

            group.start_soon(when_asked)
            await self._clock.sleep_until(checked_at + self._interval)
            group.cancel_scope.cancel()
