"""Claimed namespaces: live markers by time, transitions once, reconciles skipped while claimed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest

from manager.runtime.cache import Cache
from manager.runtime.controller import Request, Result
from manager.runtime.kinds import LEASE
from manager.runtime.namespace_claims import ClaimAware, NamespaceClaims, lease_expiry

pytestmark = pytest.mark.anyio

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def marker(namespace: str, renewed: datetime | None, seconds: int | None = 30) -> dict[str, Any]:
    spec: dict[str, Any] = {"holderIdentity": "namespace-restricted-operator-1"}
    if renewed is not None:
        spec["renewTime"] = renewed.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if seconds is not None:
        spec["leaseDurationSeconds"] = seconds
    version = f"{namespace}-{renewed}"
    return {
        "metadata": {"name": "marker", "namespace": namespace, "resourceVersion": version},
        "spec": spec,
    }


def test_a_lease_is_live_until_renew_time_plus_duration() -> None:
    assert lease_expiry(marker("a", T0)) == T0 + timedelta(seconds=30)
    assert lease_expiry(marker("a", None)) is None  # never renewed: not a claim
    assert lease_expiry(marker("a", T0, seconds=None)) is None


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


async def test_claims_follow_the_markers_and_announce_each_transition_once() -> None:
    cache, clock = Cache(api=None), Clock()
    claims = NamespaceClaims(cache, lease_name="marker", now=clock)
    assert cache.options(LEASE) is not None
    assert cache.options(LEASE).field_selector == "metadata.name=marker"
    transitions: list[tuple[str, bool]] = []
    claims.add_listener(lambda namespace, claimed: transitions.append((namespace, claimed)))
    informer = cache.get_informer(LEASE)

    informer.replace([marker("a", T0), marker("b", T0 - timedelta(minutes=5))], "1")
    assert claims.is_claimed("a")
    assert not claims.is_claimed("b")  # expired before we saw it
    informer.replace([marker("a", T0 + timedelta(seconds=10))], "2")  # a renewal: no transition
    assert transitions == [("a", True)]

    informer.replace([], "3")  # deleted on a clean stop: released at once
    assert not claims.is_claimed("a")
    assert transitions == [("a", True), ("a", False)]


async def test_an_expired_marker_releases_its_namespace_without_any_event() -> None:
    cache = Cache(api=None)
    claims = NamespaceClaims(cache, lease_name="marker")  # the real clock
    transitions: list[tuple[str, bool]] = []
    released = anyio.Event()

    def listen(namespace: str, claimed: bool) -> None:
        transitions.append((namespace, claimed))
        if not claimed:
            released.set()

    claims.add_listener(listen)
    # Renewed just now, for one second of real time: `run` must wake when it expires.
    cache.get_informer(LEASE).replace([marker("a", datetime.now(UTC), seconds=1)], "1")
    async with anyio.create_task_group() as tg:
        await tg.start(claims.run)
        with anyio.fail_after(10):
            await released.wait()
        tg.cancel_scope.cancel()
    assert transitions == [("a", True), ("a", False)]


class Counting:
    def __init__(self) -> None:
        self.requests: list[Request] = []

    async def reconcile(self, request: Request) -> Result | None:
        self.requests.append(request)
        return None


async def test_reconciles_in_a_claimed_namespace_do_nothing() -> None:
    cache, clock = Cache(api=None), Clock()
    claims = NamespaceClaims(cache, lease_name="marker", now=clock)
    cache.get_informer(LEASE).replace([marker("a", T0)], "1")
    inner = Counting()
    reconciler = ClaimAware(inner, claims)
    await reconciler.reconcile(Request("a", "graph"))
    await reconciler.reconcile(Request("b", "graph"))
    assert inner.requests == [Request("b", "graph")]
    clock.now = T0 + timedelta(seconds=31)
    await reconciler.reconcile(Request("a", "graph"))
    assert inner.requests[-1] == Request("a", "graph")
