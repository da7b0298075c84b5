"""The local Kubernetes control plane used by ``hack/local-cluster`` and ``e2e/conftest.py``.

Not part of the operator: a developer and test tool, loaded from ``hack/`` by path.
"""

from .admin_client import AdminClient, ApiError
from .binaries import Binaries, BuildError, ensure_binaries
from .cluster import LocalCluster, install_crd
from .control_plane import ControlPlane
from .ephemeral import kubeconfig_or_local_cluster
from .pki import KeyPair, Pki
from .processes import StartupError, rss_bytes
from .waiting import wait_for

__all__ = [
    "AdminClient",
    "ApiError",
    "Binaries",
    "BuildError",
    "ControlPlane",
    "KeyPair",
    "LocalCluster",
    "Pki",
    "StartupError",
    "ensure_binaries",
    "install_crd",
    "kubeconfig_or_local_cluster",
    "rss_bytes",
    "wait_for",
]
