"""The kind registry: synchronous lookups of kinds resolved at start-up."""

from __future__ import annotations

from collections.abc import Iterable

import anyio
import pytest

from manager.runtime.client import KindNotFoundError, KindRegistry, KubeError
from manager.runtime.clock import FakeClock
from manager.runtime.discovery import RequiredKinds, ServedApis
from manager.runtime.kinds import DEPLOYMENT, ResourceKind
from tests.manager.runtime.fakes import WIDGET as WIRE_WIDGET

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


class ResolvingDiscovery:
    """Serves every kind asked for, as discovery would find it (no wire format)."""

    def __init__(self) -> None:
        self.registry = KindRegistry()
        self.asked: list[tuple[str, str]] = []

    async def resolve_all(self, kinds: Iterable[tuple[str, str]]) -> None:
        for api_version, kind in kinds:
            self.asked.append((api_version, kind))
            self.registry.add(ResourceKind(api_version, kind, "widgets", namespaced=True))


@pytest.mark.anyio
async def test_a_kind_with_a_wire_format_needs_both_versions_and_is_written_through_it() -> None:
    discovery = ResolvingDiscovery()
    required = RequiredKinds(discovery, [WIRE_WIDGET, DEPLOYMENT])  # type: ignore[arg-type]
    async with anyio.create_task_group() as group:
        await group.start(required.run)
        group.cancel_scope.cancel()

    assert sorted(discovery.asked) == [
        ("apps/v1", "Deployment"),
        ("example.com/v1", "Widget"),
        ("example.com/v2", "Widget"),
    ]
    assert discovery.registry.kind_for("example.com/v1", "Widget").wire is not None
    assert discovery.registry.kind_for("example.com/v2", "Widget").wire is None
