"""The kind registry: synchronous lookups of kinds resolved at start-up."""

from __future__ import annotations

import anyio
import pytest

from manager.runtime.client import KindNotFoundError, KindRegistry, KubeError
from manager.runtime.clock import FakeClock
from manager.runtime.discovery import ServedApis
from manager.runtime.kinds import DEPLOYMENT, ResourceKind

WIDGET = ResourceKind("example.com/v1", "Widget", "widgets", namespaced=True)


def test_built_in_kinds_are_known_from_the_start() -> None:
    registry = KindRegistry()
    assert registry.kind_of({"apiVersion": "apps/v1", "kind": "Deployment"}) is DEPLOYMENT
    assert DEPLOYMENT in registry


def test_an_unresolved_kind_fails_at_once_with_a_kube_error_naming_it() -> None:
    registry = KindRegistry()
    with pytest.raises(KindNotFoundError, match=r"Widget of example\.com/v1") as raised:
        registry.kind_for("example.com/v1", "Widget")
    assert isinstance(raised.value, KubeError)
    assert WIDGET not in registry


def test_an_added_kind_is_found_by_api_version_and_kind() -> None:
    registry = KindRegistry()
    registry.add(WIDGET)
    assert registry.kind_for("example.com/v1", "Widget") is WIDGET
    assert registry.get("example.com/v2", "Widget") is None


class CountingDiscovery:
    """Answers `served_group_versions` with what the cluster serves now, counting the looks."""

    def __init__(self) -> None:
        self.served = frozenset({"v1"})
        self.looks = 0

    async def served_group_versions(self) -> frozenset[str]:
        self.looks += 1
        return self.served


LWS = "leaderworkerset.x-k8s.io/v1"


@pytest.mark.anyio
async def test_optional_apis_are_looked_up_every_interval_or_soon_after_a_need() -> None:
    clock, discovery = FakeClock(), CountingDiscovery()
    served = ServedApis(discovery, [LWS], interval=300, soonest=30, clock=clock)  # type: ignore[arg-type]
    async with anyio.create_task_group() as group:
        await group.start(served.run)
        await clock.settle(299)
        assert discovery.looks == 1  # nothing needed it: no look before the interval
        await clock.settle(1)
        assert discovery.looks == 2

        discovery.served = frozenset({"v1", LWS})  # installed; a component needs it
        served.recheck_soon()
        await clock.settle(29)
        assert (discovery.looks, served.serves(LWS)) == (2, False)  # not twice in 30 s
        await clock.settle(1)
        assert (discovery.looks, served.serves(LWS)) == (3, True)

        await clock.settle(100)
        served.recheck_soon()  # a need long after the last look: at once
        await clock.settle()
        assert discovery.looks == 4
        group.cancel_scope.cancel()
