from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.builders import component_discovery_backend, uses_kubernetes_discovery
from dynamo_operator.settings import OperatorSettings

ANNOTATION = "nvidia.com/dynamo-discovery-backend"
KUBERNETES = OperatorSettings()
ETCD = OperatorSettings(etcd_addr="http://etcd:2379")


@pytest.mark.parametrize(
    ("annotations", "settings", "backend"),
    [
        (None, KUBERNETES, "kubernetes"),
        (None, ETCD, "etcd"),
        ({ANNOTATION: "etcd"}, KUBERNETES, "etcd"),
        ({ANNOTATION: "kubernetes"}, ETCD, "kubernetes"),
        ({ANNOTATION: ""}, ETCD, "etcd"),  # empty: no choice, the operator's
        ({ANNOTATION: "consul"}, KUBERNETES, "kubernetes"),  # refused at admission
    ],
)
def test_the_component_annotation_overrides_the_operator_choice(
    annotations: dict[str, str] | None, settings: OperatorSettings, backend: str
) -> None:
    assert component_discovery_backend(annotations, settings) == backend


def dcd(annotations: dict[str, Any] | None) -> dict[str, Any]:
    spec: dict[str, Any] = {} if annotations is None else {"annotations": annotations}
    return {"metadata": {"name": "g-worker"}, "spec": spec}


def test_a_component_needs_its_discovery_account_when_it_discovers_through_kubernetes() -> None:
    assert uses_kubernetes_discovery(dcd(None), KUBERNETES)
    assert not uses_kubernetes_discovery(dcd(None), ETCD)
    assert uses_kubernetes_discovery(dcd({ANNOTATION: "kubernetes"}), ETCD)
    assert not uses_kubernetes_discovery(dcd({ANNOTATION: "etcd"}), KUBERNETES)
