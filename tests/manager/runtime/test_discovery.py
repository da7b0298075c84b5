"""The kind registry: synchronous lookups of kinds resolved at start-up."""

from __future__ import annotations

import pytest

from manager.runtime.client import KindNotFoundError, KindRegistry, KubeError
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
