"""Leader election against a real kube-apiserver: exactly one leader; a killed leader is replaced
once its lease expires, a released one at the next retry."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from prometheus_client import REGISTRY

from manager.runtime.client import RestClient
from manager.runtime.identity import Identity
from manager.runtime.kinds import LEASE, SERVICE_ACCOUNT
from manager.runtime.leaderelection import LeaderElector
from manager.runtime.process_owner import ProcessOwner

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

LEASE_SECONDS = 4.0
TIMINGS = {"lease_duration": LEASE_SECONDS, "renew_deadline": 3.0, "retry_period": 0.5}
IDENTITY = Identity.for_product("e2e-operator", domain="example.com", version="0")


def electors(api: Any, namespace: str, **timings: float) -> tuple[LeaderElector, LeaderElector]:
    options: dict[str, Any] = {**TIMINGS, **timings}
    return (
        LeaderElector(
            api, IDENTITY, name="op", namespace=namespace, holder_identity="a", **options
        ),
        LeaderElector(
            api, IDENTITY, name="op", namespace=namespace, holder_identity="b", **options
        ),
    )


async def holder(api: Any, namespace: str) -> str | None:
    lease = await RestClient.for_api(api).get(LEASE, namespace, "op")
    identity: str | None = lease["spec"].get("holderIdentity")
    return identity


async def test_one_of_two_candidates_leads_and_the_other_takes_over_when_it_dies(
    api: Any, namespace: str
) -> None:
    first, second = electors(api, namespace)

    async with anyio.create_task_group() as tg:
        await first.acquire()
        leader_scope = anyio.CancelScope()

        async def lead() -> None:
            with leader_scope:
                await first.hold()

        tg.start_soon(lead)
        second_elected = anyio.Event()

        async def campaign() -> None:
            await second.acquire()
            second_elected.set()
            await second.hold()

        tg.start_soon(campaign)
        await anyio.sleep(LEASE_SECONDS * 1.5)  # well past a lease: the leader keeps renewing
        assert (first.is_leader, second.is_leader) == (True, False)
        assert await holder(api, namespace) == "a"
        lease = await RestClient.for_api(api).get(LEASE, namespace, "op")
        managers = {entry["manager"] for entry in lease["metadata"]["managedFields"]}
        assert managers == {"e2e-operator-leader-election"}
        gauge = REGISTRY.get_sample_value("leader_election_master_status", {"name": "op"})
        assert gauge is not None

        leader_scope.cancel()  # the leader dies: no release, its lease must expire
        with anyio.fail_after(LEASE_SECONDS * 4):
            await second_elected.wait()
        assert await holder(api, namespace) == "b"
        tg.cancel_scope.cancel()


async def test_a_released_lease_is_taken_at_the_next_retry_not_after_expiry(
    api: Any, namespace: str
) -> None:
    # A long lease, so taking over before it could expire proves the release did it.
    first, second = electors(api, namespace, lease_duration=30.0, renew_deadline=20.0)
    await first.acquire()

    async with anyio.create_task_group() as tg:
        second_elected = anyio.Event()

        async def campaign() -> None:
            await second.acquire()
            second_elected.set()

        tg.start_soon(campaign)
        await anyio.sleep(1.0)
        assert not second_elected.is_set()

        await first.release()
        assert not first.is_leader
        with anyio.fail_after(10.0):
            await second_elected.wait()

    assert second.is_leader
    assert await holder(api, namespace) == "b"


async def test_a_renewal_whose_answer_was_lost_does_not_block_the_release(
    api: Any, namespace: str
) -> None:
    """`hold` is cancelled mid-renewal on SIGTERM: the write may land while its answer is lost,
    leaving the leader one resourceVersion behind. The release must still hand the lease over."""
    first, _ = electors(api, namespace, lease_duration=30.0, renew_deadline=20.0)
    await first.acquire()
    rest = RestClient.for_api(api)
    lease = await rest.get(LEASE, namespace, "op")
    lease["spec"]["renewTime"] = lease["spec"]["acquireTime"]  # a renewal it never saw answered
    await rest.replace(LEASE, lease, field_manager="e2e")

    await first.release()

    assert await holder(api, namespace) is None


async def test_a_leader_that_cannot_renew_steps_down_within_the_renew_deadline(
    api: Any, namespace: str
) -> None:
    first, second = electors(api, namespace)
    await first.acquire()

    # Someone else takes the lease by force (as after a network partition): renewals now fail.
    lease = await RestClient.for_api(api).get(LEASE, namespace, "op")
    lease["spec"]["holderIdentity"] = "intruder"
    await RestClient.for_api(api).replace(LEASE, lease, field_manager="test")

    with anyio.fail_after(TIMINGS["renew_deadline"] * 3):
        await first.hold()
    assert not first.is_leader
    assert not second.is_leader


async def test_taking_renewing_and_releasing_keep_what_others_set_on_the_lease(
    api: Any, namespace: str
) -> None:
    # The owner (a ServiceAccount, as the chart's operator uses) and a label someone else added.
    rest = RestClient.for_api(api)
    account = await rest.create(
        SERVICE_ACCOUNT,
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": "operator", "namespace": namespace},
        },
        field_manager="e2e",
    )
    owner = ProcessOwner(rest, SERVICE_ACCOUNT, namespace, "operator")
    elector = LeaderElector(
        api, IDENTITY, name="op", namespace=namespace, holder_identity="a", owner=owner, **TIMINGS
    )
    await elector.acquire()  # creates the Lease
    await rest.json_patch(
        LEASE,
        namespace,
        "op",
        [{"op": "add", "path": "/metadata/labels", "value": {"team": "platform"}}],
        field_manager="e2e",
    )

    async with anyio.create_task_group() as tg:
        tg.start_soon(elector.hold)  # renews with PUTs
        await anyio.sleep(TIMINGS["retry_period"] * 3)
        tg.cancel_scope.cancel()
    await elector.release()  # one more PUT

    lease = await rest.get(LEASE, namespace, "op")
    assert lease["spec"].get("holderIdentity") in (None, "")
    assert lease["metadata"]["labels"] == {"team": "platform"}
    [reference] = lease["metadata"]["ownerReferences"]
    assert (reference["kind"], reference["uid"]) == ("ServiceAccount", account["metadata"]["uid"])
