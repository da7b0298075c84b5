"""What the e2e ``control_plane`` fixture hands to tests: one shape for the local control plane and
for an external cluster (DYNAMO_E2E_KUBECONFIG), where only the local one can restart or compact.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from e2e.localcluster.controlplane.cluster import LocalCluster


@dataclass
class ControlPlane:
    kubeconfig: Path
    server: str
    local: LocalCluster | None
    """The local control plane's processes and PKI; None on an external cluster."""

    def restart_apiserver(self) -> None:
        """Stop kube-apiserver and start it again on the same port with the same etcd."""
        self._require_local("restart_apiserver").restart_apiserver()

    def compact_etcd(self) -> int:
        """Compact etcd to its current revision and restart the apiserver (which resets its watch
        cache), so older resourceVersions are 410 Gone for watches and lists; returns the revision.
        """
        return self._require_local("compact_etcd").compact_etcd()

    def restart_crashed(self) -> list[str]:
        """Start again the local control plane's controllers that exited (the kubelet's job
        on a real one): the names restarted."""
        return self._require_local("restart_crashed").restart_crashed()

    def _require_local(self, what: str) -> LocalCluster:
        if self.local is None:
            raise RuntimeError(
                f"{what}() needs the local control plane, not the cluster in "
                f"DYNAMO_E2E_KUBECONFIG; mark the test local_control_plane"
            )
        return self.local
