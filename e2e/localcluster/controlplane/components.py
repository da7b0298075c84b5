"""Command lines of the control plane's components, and the ports they listen on.

The flags follow what controller-runtime's envtest and kwokctl pass, adapted to running everything
as plain processes on 127.0.0.1; each non-obvious choice says why.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

from e2e.localcluster.build import Binaries
from e2e.localcluster.controlplane.pki import Pki
from e2e.localcluster.ports import free_port

SERVICE_CLUSTER_IP_RANGE = "10.96.0.0/16"
# The `kubernetes` Service's ClusterIP (first address of the range): in-cluster clients verify it.
KUBERNETES_SERVICE_IP = "10.96.0.1"
KUBERNETES_SERVICE_NAMES = (
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
)
# `LOCAL_CLUSTER_PROFILING=1`: the API server serves /debug/pprof (where a benchmark's server
# time goes: `kubectl get --raw '/debug/pprof/profile?seconds=30'`). Off by default, as envtest.
API_SERVER_PROFILING = os.environ.get("LOCAL_CLUSTER_PROFILING") == "1"


@dataclass(frozen=True)
class Ports:
    etcd: int
    etcd_peer: int
    apiserver: int
    controller_manager: int
    scheduler: int
    lws_webhook: int
    lws_metrics: int
    lws_health: int

    @classmethod
    def pick_free(cls) -> Ports:
        """Distinct ports free right now (`free_port` never hands one out twice)."""
        return cls(*(free_port() for _ in cls.__dataclass_fields__))

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def etcd_argv(binaries: Binaries, ports: Ports, data_dir: Path) -> list[str | Path]:
    client = f"http://127.0.0.1:{ports.etcd}"
    peer = f"http://127.0.0.1:{ports.etcd_peer}"
    return [
        binaries.kube("etcd"),
        "--name=local",
        f"--data-dir={data_dir}",
        f"--listen-client-urls={client}",
        f"--advertise-client-urls={client}",
        f"--listen-peer-urls={peer}",
        f"--initial-advertise-peer-urls={peer}",
        f"--initial-cluster=local={peer}",
        # A throw-away test store: durability costs time and buys nothing.
        "--unsafe-no-fsync",
        "--log-level=warn",
    ]


def apiserver_argv(
    binaries: Binaries, ports: Ports, pki: Pki, cert_dir: Path, *, node_ip: str | None = None
) -> list[str | Path]:
    """The apiserver's command line; with ``node_ip``, the in-cluster variant (see below)."""
    argv: list[str | Path] = [
        binaries.kube("kube-apiserver"),
        f"--etcd-servers=http://127.0.0.1:{ports.etcd}",
        "--bind-address=127.0.0.1",
        # Without it the apiserver looks for a default route, which CI sandboxes may not have.
        "--advertise-address=127.0.0.1",
        f"--secure-port={ports.apiserver}",
        f"--cert-dir={cert_dir}",
        f"--tls-cert-file={pki.apiserver.cert}",
        f"--tls-private-key-file={pki.apiserver.key}",
        f"--client-ca-file={pki.ca.cert}",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        f"--service-account-key-file={pki.service_account_public_key}",
        f"--service-account-signing-key-file={pki.service_account_key}",
        f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}",
        "--authorization-mode=RBAC",
        "--allow-privileged=true",
        # As envtest: Pods need no 'default' ServiceAccount to exist first (no kubelet mounts it).
        "--disable-admission-plugins=ServiceAccount",
        # The 'kubernetes' Service would get 127.0.0.1 endpoints, which validation rejects.
        "--endpoint-reconciler-type=none",
        f"--profiling={str(API_SERVER_PROFILING).lower()}",
    ]
    return argv if node_ip is None else _in_cluster_apiserver_argv(argv, pki, node_ip)


def _in_cluster_apiserver_argv(argv: list[str | Path], pki: Pki, node_ip: str) -> list[str | Path]:
    """What Pods on a real node need to use the apiserver, and the apiserver to reach a kubelet.

    Pods reach it through the `kubernetes` Service, whose endpoint is the advertised node IP, so
    it listens beyond loopback and the endpoint reconciler runs; ServiceAccount admission gives
    Pods their token. Kubelets authenticate as ``system:node:<name>`` (Node authorizer,
    NodeRestriction), and the apiserver calls them with the admin certificate, verifying their
    serving certificates against the cluster CA at their InternalIP.
    """
    replaced = {
        "--bind-address": "0.0.0.0",
        "--advertise-address": node_ip,
        "--authorization-mode": "Node,RBAC",
    }
    dropped = {"--disable-admission-plugins", "--endpoint-reconciler-type"}
    result: list[str | Path] = []
    for arg in argv:
        flag = str(arg).split("=", 1)[0]
        if flag in dropped:
            continue
        result.append(f"{flag}={replaced[flag]}" if flag in replaced else arg)
    return [
        *result,
        "--enable-admission-plugins=NodeRestriction",
        f"--kubelet-client-certificate={pki.admin.cert}",
        f"--kubelet-client-key={pki.admin.key}",
        f"--kubelet-certificate-authority={pki.ca.cert}",
        "--kubelet-preferred-address-types=InternalIP,Hostname",
    ]


def controller_manager_argv(
    binaries: Binaries, ports: Ports, pki: Pki, kubeconfig: Path
) -> list[str | Path]:
    return [
        binaries.kube("kube-controller-manager"),
        f"--kubeconfig={kubeconfig}",
        # Delegated authn/authz for its own /healthz etc.; the admin identity silences warnings.
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        "--leader-elect=false",
        "--use-service-account-credentials=false",
        "--controllers=*",
        f"--service-account-private-key-file={pki.service_account_key}",
        f"--root-ca-file={pki.ca.cert}",
        "--bind-address=127.0.0.1",
        f"--secure-port={ports.controller_manager}",
        "--kube-api-qps=100",
        "--kube-api-burst=200",
        "--profiling=false",
        # Tests restart the API server, several times in a row under chaos; kwok's heartbeats
        # stop meanwhile, and a node marked NotReady has its pods' Ready condition set False,
        # which kwok never sets back: graphs would wait for ever on pods nothing is wrong with.
        "--node-monitor-grace-period=5m",
    ]


def scheduler_argv(binaries: Binaries, ports: Ports, kubeconfig: Path) -> list[str | Path]:
    return [
        binaries.kube("kube-scheduler"),
        f"--kubeconfig={kubeconfig}",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        f"--secure-port={ports.scheduler}",
        "--profiling=false",
    ]


def lws_controller_argv(binaries: Binaries, config: Path) -> list[str | Path]:
    return [binaries.lws_controller, f"--config={config}"]
