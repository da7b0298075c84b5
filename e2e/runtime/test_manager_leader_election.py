"""Two managers against a real kube-apiserver elect exactly one leader; when the leader dies
without releasing the Lease the other takes over once the lease expires, and when it shuts down
gracefully the other takes over at its next retry."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from anyio.abc import TaskStatus

from manager.runtime.client import RestClient
from manager.runtime.identity import Identity
from manager.runtime.kinds import LEASE
from manager.runtime.leaderelection import LeaderElector
from manager.runtime.manager import Manager

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

LEASE_NAME = "sample-manager"
LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD = 4.0, 3.0, 1.0
# How long to wait for a takeover before failing: on an idle machine the lease runs out on its own
# clock, then comes the next jittered retry (up to 2.2 retry periods); the suite's other control
# planes share these 2 cores, so an API round trip can take seconds. A bound to stop waiting, not
# a timing the test asserts (CI once needed more than 7.2 s here).
TAKEOVER_BOUND = 60.0


class LeaderWork:
    """A leader-only runnable that records which identities are running it now."""

    needs_leader_election = True

    def __init__(self, identity: str, leading: set[str]) -> None:
        self.identity, self.leading = identity, leading

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        self.leading.add(self.identity)
        task_status.started()
        try:
            await anyio.sleep_forever()
        finally:
            self.leading.discard(self.identity)


class Candidate:
    def __init__(self, api: Any, namespace: str, identity: str, leading: set[str]) -> None:
        elector = LeaderElector(
            api,
            Identity.for_product("e2e-operator", domain="example.com", version="0"),
            name=LEASE_NAME,
            namespace=namespace,
            holder_identity=identity,
            lease_duration=LEASE_DURATION,
            renew_deadline=RENEW_DEADLINE,
            retry_period=RETRY_PERIOD,
        )
        self.identity = identity
        self.manager = Manager(leader_elector=elector, health_port=None, metrics_port=None)
        self.manager.add(LeaderWork(identity, leading))
        self.scope = anyio.CancelScope()

    async def run(self) -> None:
        with self.scope:
            await self.manager.run()


async def wait_for_leader(leading: set[str], among: list[Candidate]) -> str:
    """Poll until exactly one candidate leads; callers bound the wait."""
    # Leadership changes on the other candidates' timers; there is no event to wait on here.
    while len(leading) != 1 or not {c.identity for c in among} >= leading:  # noqa: ASYNC110
        await anyio.sleep(0.05)
    return next(iter(leading))


async def lease_holder(api: Any, namespace: str) -> str | None:
    lease = await RestClient.for_api(api).get(LEASE, namespace, LEASE_NAME)
    return (lease.get("spec") or {}).get("holderIdentity")


async def test_one_leader_and_takeover_when_the_leader_dies(api: Any, namespace: str) -> None:
    leading: set[str] = set()
    candidates = {name: Candidate(api, namespace, name, leading) for name in ("a", "b")}
    async with anyio.create_task_group() as tg:
        for candidate in candidates.values():
            tg.start_soon(candidate.run)
        with anyio.fail_after(TAKEOVER_BOUND):
            first = await wait_for_leader(leading, list(candidates.values()))
        # Several renewals later there is still exactly one leader.
        await anyio.sleep(3 * RETRY_PERIOD)
        assert leading == {first}
        assert await lease_holder(api, namespace) == first

        # Kill the leader: cancelled, it neither drains nor releases the Lease, like a crash.
        candidates[first].scope.cancel()
        survivor = candidates["b" if first == "a" else "a"]
        with anyio.fail_after(TAKEOVER_BOUND):
            assert await wait_for_leader(leading, [survivor]) == survivor.identity
        assert await lease_holder(api, namespace) == survivor.identity
        survivor.manager.request_shutdown()


async def test_a_graceful_shutdown_hands_the_lease_over_at_once(api: Any, namespace: str) -> None:
    leading: set[str] = set()
    candidates = {name: Candidate(api, namespace, name, leading) for name in ("a", "b")}
    async with anyio.create_task_group() as tg:
        for candidate in candidates.values():
            tg.start_soon(candidate.run)
        with anyio.fail_after(TAKEOVER_BOUND):
            first = await wait_for_leader(leading, list(candidates.values()))
        survivor = candidates["b" if first == "a" else "a"]

        candidates[first].manager.request_shutdown()
        # Released: the survivor needs no lease expiry, only its next retry.
        with anyio.fail_after(2.2 * RETRY_PERIOD + 1.0):
            assert await wait_for_leader(leading, [survivor]) == survivor.identity
        survivor.manager.request_shutdown()
