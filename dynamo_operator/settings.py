"""Operator-wide settings that change what the builders produce.

Filled from command-line flags by the composition root (and by ``dynamo-operator render``), and from
API discovery for ``available_apis``. Frozen so one value can be shared by every reconcile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DiscoveryBackend = Literal["kubernetes", "etcd"]
"""How Dynamo's processes find each other: through the API server, or through an etcd."""

OptionalApi = Literal["lws", "volcano", "istio"]
"""APIs the operator uses only when the cluster serves them: LeaderWorkerSet, Volcano, Istio."""

ALL_OPTIONAL_APIS: frozenset[OptionalApi] = frozenset({"lws", "volcano", "istio"})

LEADER_WORKER_SET_API_VERSION = "leaderworkerset.x-k8s.io/v1"
POD_GROUP_API_VERSION = "scheduling.volcano.sh/v1beta1"
VIRTUAL_SERVICE_API_VERSION = "networking.istio.io/v1beta1"

OPTIONAL_API_GROUP_VERSIONS: dict[OptionalApi, str] = {
    "lws": LEADER_WORKER_SET_API_VERSION,
    "volcano": POD_GROUP_API_VERSION,
    "istio": VIRTUAL_SERVICE_API_VERSION,
}
"""The group-version discovery must serve for each optional API to be used."""


@dataclass(frozen=True, slots=True)
class OperatorSettings:
    nats_addr: str | None = None
    """``--natsAddr``: injected into every pod as ``NATS_SERVER``."""
    etcd_addr: str | None = None
    """``--etcdAddr``: injected into every pod as ``ETCD_ENDPOINTS``."""
    ingress_controller_class_name: str | None = None
    """``--ingress-controller-class-name``: enables the default frontend Ingress of that class."""
    ingress_controller_tls_secret_name: str | None = None
    """``--ingress-controller-tls-secret-name``: TLS Secret of the default frontend Ingress."""
    ingress_host_suffix: str | None = None
    """``--ingress-host-suffix``: host suffix of the default frontend ingress (else ``local``)."""
    istio_virtual_service_gateway: str | None = None
    """``--istio-virtual-service-gateway``: default frontend exposure through this Istio gateway."""
    discovery_cluster_role_name: str | None = None
    """``--discovery-cluster-role-name``: with Kubernetes discovery, each graph's account is bound
    to this ClusterRole instead of a Role of its own (the chart installs it, cluster-wide)."""
    available_apis: frozenset[OptionalApi] = ALL_OPTIONAL_APIS
    """Optional APIs the cluster serves (from discovery; ``render`` assumes all unless told)."""

    @property
    def discovery_backend(self) -> DiscoveryBackend:
        """etcd when the operator was given one (``--etcdAddr``), else Kubernetes: a graph then
        needs nothing else running to serve."""
        return "etcd" if self.etcd_addr else "kubernetes"
