"""How a component's processes discover each other: through the API server, or through an etcd.

The operator's choice (``OperatorSettings.discovery_backend``: etcd when given ``--etcdAddr``)
unless the component says otherwise with annotation ``nvidia.com/dynamo-discovery-backend``
(``kubernetes`` or ``etcd``) in its ``annotations``: a graph's own annotation reaches each
component it generates unless the service gives one (``component_deployments``), as upstream's
``GetDiscoveryBackend`` reads it. An empty value is no choice (the operator's); any other value
is refused at admission and ignored here.

The answer decides the pod's ``DYN_DISCOVERY_BACKEND`` (``kubernetes``, or unset for etcd, the
runtime's default), its service account (the namespace's discovery account with Kubernetes
discovery) and its Service's discovery labels, and whether that account must exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.constants import Annotations
from dynamo_operator.settings import DiscoveryBackend, OperatorSettings

DISCOVERY_BACKENDS: tuple[DiscoveryBackend, ...] = ("kubernetes", "etcd")


def component_discovery_backend(
    annotations: Mapping[str, Any] | None, settings: OperatorSettings
) -> DiscoveryBackend:
    """The discovery backend of a component with these ``annotations`` (its spec's)."""
    chosen = (annotations or {}).get(Annotations.DISCOVERY_BACKEND)
    for backend in DISCOVERY_BACKENDS:
        if chosen == backend:
            return backend
    return settings.discovery_backend


def uses_kubernetes_discovery(dcd: Mapping[str, Any], settings: OperatorSettings) -> bool:
    """Whether the pods of ``dcd`` (wire form) discover through the API server, so its discovery
    account (its graph's, or its own) must exist before them."""
    spec = dcd.get("spec")
    annotations = spec.get("annotations") if isinstance(spec, Mapping) else None
    backend = component_discovery_backend(
        annotations if isinstance(annotations, Mapping) else None, settings
    )
    return backend == "kubernetes"
