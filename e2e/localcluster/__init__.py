"""The local Kubernetes cluster used by ``hack/local-cluster``, the e2e fixtures and the benchmarks.

Not part of the operator: a developer and test tool. ``controlplane`` runs etcd, the apiserver, the
controller-manager, the scheduler, kwok and LeaderWorkerSet as processes on 127.0.0.1;
``realnode`` adds one real kubelet + containerd + kube-proxy node; ``build`` runs the Go builds in
``hack/control-plane/`` that provide their binaries.
"""

from e2e.localcluster.build import Binaries, BuildError, ensure_binaries
from e2e.localcluster.conditions import condition, is_condition_true
from e2e.localcluster.controlplane.admin_client import AdminClient, ApiError
from e2e.localcluster.controlplane.cluster import LocalCluster
from e2e.localcluster.controlplane.control_plane import ControlPlane
from e2e.localcluster.controlplane.crds import CrdClient, install_crds
from e2e.localcluster.controlplane.ephemeral import kubeconfig_or_local_cluster
from e2e.localcluster.controlplane.pki import KeyPair, Pki
from e2e.localcluster.processes import StartupError, rss_bytes
from e2e.localcluster.waiting import wait_for

__all__ = [
    "AdminClient",
    "ApiError",
    "Binaries",
    "BuildError",
    "ControlPlane",
    "CrdClient",
    "KeyPair",
    "LocalCluster",
    "Pki",
    "StartupError",
    "condition",
    "ensure_binaries",
    "install_crds",
    "is_condition_true",
    "kubeconfig_or_local_cluster",
    "rss_bytes",
    "wait_for",
]
