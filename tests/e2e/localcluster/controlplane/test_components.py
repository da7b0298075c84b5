"""The apiserver's command line: kwok-only by default, in-cluster access only when asked."""

from __future__ import annotations

from pathlib import Path

from e2e.localcluster.build import Binaries
from e2e.localcluster.controlplane.components import Ports, apiserver_argv
from e2e.localcluster.controlplane.pki import load_pki

BINARIES = Binaries(Path("/bin"), Path("/kwok"), Path("/helm"), Path("/lws"))
PORTS = Ports(1, 2, 3, 4, 5, 6, 7, 8)
PKI = load_pki(Path("/pki"))


def argv(node_ip: str | None = None) -> list[str]:
    return [str(a) for a in apiserver_argv(BINARIES, PORTS, PKI, Path("/c"), node_ip=node_ip)]


def test_the_default_apiserver_stays_on_loopback_without_tokens_or_endpoints() -> None:
    default = argv()
    assert "--bind-address=127.0.0.1" in default
    assert "--advertise-address=127.0.0.1" in default
    assert "--disable-admission-plugins=ServiceAccount" in default
    assert "--endpoint-reconciler-type=none" in default
    assert "--authorization-mode=RBAC" in default
    assert not [a for a in default if a.startswith("--kubelet-")]


def test_in_cluster_the_apiserver_serves_pods_and_authorizes_kubelets_as_nodes() -> None:
    in_cluster = argv("192.0.2.2")
    assert "--bind-address=0.0.0.0" in in_cluster
    assert "--advertise-address=192.0.2.2" in in_cluster
    assert "--authorization-mode=Node,RBAC" in in_cluster
    assert "--enable-admission-plugins=NodeRestriction" in in_cluster
    assert "--kubelet-preferred-address-types=InternalIP,Hostname" in in_cluster
    assert "--kubelet-certificate-authority=/pki/ca.crt" in in_cluster
    assert not [a for a in in_cluster if a.startswith("--disable-admission-plugins")]
    assert not [a for a in in_cluster if a.startswith("--endpoint-reconciler-type")]
    # Everything else is the same command line.
    flags = {a.split("=", 1)[0] for a in in_cluster}
    assert flags >= {a.split("=", 1)[0] for a in argv()} - {
        "--disable-admission-plugins",
        "--endpoint-reconciler-type",
    }
