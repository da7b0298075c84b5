"""cert-manager for end-to-end tests: its controller and cainjector as processes, its CRDs, and the
certificate objects the operator's Helm chart renders with ``webhook.certManager.enabled``
(taken from ``helm template``).

The binaries and CRDs come from the ``github.com/cert-manager/cert-manager`` module, built by
``hack/control-plane/build-cert-manager.sh`` (``hack/control-plane/build.sh`` runs it, so here it
only finds the cache). Both processes run on the host with the test cluster's kubeconfig, without
leader election and without cert-manager's own webhook (the tests create valid objects only).
They watch every namespace; each test keeps its objects in its own namespace.

``sync_secret_volume`` plays the kubelet: it writes a Secret's keys into a directory the way a
Secret volume is updated (a new snapshot directory, then the ``..data`` symlink swapped in one
rename), which is what the operator reads in cert-manager mode.
"""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import kr8s
import yaml
from cryptography import x509
from kr8s.objects import Secret, new_class

from e2e.localcluster import is_condition_true, wait_for
from e2e.localcluster.processes import spawn
from e2e.support import chart
from e2e.support.crds import install_crd_documents

BUILD_SCRIPT = (
    Path(__file__).resolve().parents[2] / "hack" / "control-plane" / "build-cert-manager.sh"
)
INJECT_CA_FROM = "cert-manager.io/inject-ca-from"
SERVING_SECRET = "webhook-server-cert"  # upstream's webhook.certificateSecret.name
CERT_MANAGER_GROUP = "cert-manager.io/v1"
# cert-manager retries a failed step (a conflict when its cache lags, an issuer not ready yet) after
# 5 s, then 10, 20, 40 (its DefaultItemBasedRateLimiter, up to 5 min): on a loaded CI machine
# three failures in a row already pass a minute (CI, once, at 60 s).
ISSUANCE_TIMEOUT = 180.0

Issuer = new_class("Issuer", CERT_MANAGER_GROUP, namespaced=True, asyncio=False)
Certificate = new_class("Certificate", CERT_MANAGER_GROUP, namespaced=True, asyncio=False)
CertificateRequest = new_class(
    "CertificateRequest", CERT_MANAGER_GROUP, namespaced=True, asyncio=False
)


@dataclass
class CertManager:
    directory: Path
    controller: subprocess.Popen[bytes]
    cainjector: subprocess.Popen[bytes]
    log_dir: Path

    def alive(self) -> bool:
        return self.controller.poll() is None and self.cainjector.poll() is None

    def describe(self, lines: int = 15) -> str:
        """Both logs' last lines, for a failure message."""
        parts = []
        for name in ("controller", "cainjector"):
            text = (self.log_dir / f"cert-manager-{name}.log").read_text(errors="replace")
            parts.append(f"--- cert-manager {name}:\n" + "\n".join(text.splitlines()[-lines:]))
        return "\n".join(parts)


def describe_objects(kr8s_api: kr8s.Api, namespace: str) -> str:
    """Each Issuer, Certificate and CertificateRequest of ``namespace`` with its conditions, for a
    failure message: which step of the chain (CA, CA Issuer, serving certificate) is stuck, and
    what cert-manager says about it."""
    rows = []
    for kind in (Issuer, Certificate, CertificateRequest):
        for obj in kind.list(namespace=namespace, api=kr8s_api):
            raw = obj if isinstance(obj, dict) else obj.raw  # kr8s may answer a plain dict
            metadata = raw["metadata"]
            conditions = (raw.get("status") or {}).get("conditions") or []
            said = "; ".join(
                f"{c['type']}={c['status']} {c.get('reason', '')}: {c.get('message', '')}"
                for c in conditions
            )
            rows.append(
                f"{kind.kind}/{metadata['name']} at {metadata['creationTimestamp']}: {said}"
            )
    return "--- cert-manager objects:\n" + ("\n".join(rows) or "none")


def build() -> Path:
    """The cached build's directory (``bin/``, and ``src/`` the module source)."""
    result = subprocess.run(
        [str(BUILD_SCRIPT)], stdout=subprocess.PIPE, stderr=None, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"{BUILD_SCRIPT} failed with exit code {result.returncode}")
    return Path(result.stdout.strip().splitlines()[-1])


def crd_documents(directory: Path) -> list[dict[str, Any]]:
    """The CRDs of the module, ``deploy/crds/*.yaml`` (generated from its Go types)."""
    return [
        document
        for path in sorted((directory / "src" / "deploy" / "crds").glob("*.yaml"))
        for document in yaml.safe_load_all(path.read_text())
        if document
    ]


@contextlib.contextmanager
def running_cert_manager(kubeconfig: Path, log_dir: Path) -> Iterator[CertManager]:
    """Build (cached), install the CRDs, run controller and cainjector; stop both afterwards."""
    directory = build()
    install_crd_documents(kr8s.api(kubeconfig=str(kubeconfig)), crd_documents(directory))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for name in ("controller", "cainjector"):
            processes.append(
                _start(directory / "bin" / f"cert-manager-{name}", kubeconfig, log_dir, name)
            )
        manager = CertManager(directory, processes[0], processes[1], log_dir)
        time.sleep(0.5)  # a wrong flag or kubeconfig makes them exit at once: say so here
        if not manager.alive():
            raise RuntimeError(f"cert-manager exited at start:\n{manager.describe()}")
        yield manager
    finally:
        for process in processes:
            _stop(process)


def _start(binary: Path, kubeconfig: Path, log_dir: Path, name: str) -> subprocess.Popen[bytes]:
    with (log_dir / f"cert-manager-{name}.log").open("ab") as log:
        # Killed with the test process even when pytest itself is killed, as the harness's
        # processes are (e2e/localcluster/processes.py).
        return spawn(
            [str(binary), f"--kubeconfig={kubeconfig}", "-v=2"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


# The certificate objects come from the chart itself (`helm template` with
# webhook.certManager.enabled), so the tests exercise what users install: a self-signed Issuer
# makes a long-lived CA, a CA Issuer signs the serving certificate into Secret webhook-server-cert
# (mounted by the operator's Pod), and the webhook configuration names that Certificate in
# cert-manager.io/inject-ca-from for the cainjector.

CERT_MANAGER_VALUES = {"webhook": {"certManager": {"enabled": True}}}


def service_dns_names(
    service: str, namespace: str, cluster_domain: str = "cluster.local"
) -> list[str]:
    return [
        service,
        f"{service}.{namespace}",
        f"{service}.{namespace}.svc",
        f"{service}.{namespace}.svc.{cluster_domain}",
    ]


def _rendered(release: str, namespace: str) -> list[dict[str, Any]]:
    return chart.render(release=release, namespace=namespace, values=CERT_MANAGER_VALUES)


def chart_certificate_objects(
    release: str, namespace: str, *, ip_addresses: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """The chart's Issuers and Certificates for a release in `namespace`, in its order.
    ``ip_addresses`` is the tests' addition to the serving certificate: their apiserver calls
    the webhook by URL on 127.0.0.1, not through the Service."""
    objects = chart.of_kind(_rendered(release, namespace), "Issuer", "Certificate")
    for obj in objects:
        if (
            obj["kind"] == "Certificate"
            and obj["spec"]["secretName"] == SERVING_SECRET
            and ip_addresses
        ):
            obj["spec"]["ipAddresses"] = list(ip_addresses)
    return objects


def inject_ca_from(release: str, namespace: str) -> dict[str, str]:
    """The annotations the chart puts on the ValidatingWebhookConfiguration."""
    configuration = chart.one(_rendered(release, namespace), "ValidatingWebhookConfiguration")
    return dict(configuration["metadata"]["annotations"])


def request_renewal(certificate: Any) -> None:
    """What ``cmctl renew`` does: set the Certificate's Issuing condition; cert-manager then
    issues a new certificate into the same Secret (a new revision)."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    certificate.refresh()
    conditions = [
        c
        for c in (certificate.raw.get("status") or {}).get("conditions") or []
        if c["type"] != "Issuing"
    ]
    conditions.append(
        {
            "type": "Issuing",
            "status": "True",
            "reason": "ManuallyTriggered",
            "message": "renewal requested by the e2e test",
            "lastTransitionTime": now,
        }
    )
    certificate.patch({"status": {"conditions": conditions}}, subresource="status", type="merge")


def settled_serving_secret(kr8s_api: kr8s.Api, release: str, namespace: str) -> Any:
    """The serving Secret once it is signed by the CA that the CA Issuer signs with now.

    When its cache lags, cert-manager can issue one revision of a Certificate twice (two
    CertificateRequests, cert-manager#4956): for the chart's self-signed CA that is a second CA
    within the same second, and the serving certificate may already carry the first (CI, once:
    the test's renewal then came from another CA than the one it had seen injected). Users do not
    notice (the cainjector adds the new CA to the bundle and keeps the old); the tests renew the
    serving certificate once, so that what they check of a renewal is about one CA."""
    root = Certificate.get(f"{release}-root-ca", namespace=namespace, api=kr8s_api)
    wait_for("cert-manager to issue the root CA", lambda: is_ready(root), timeout=ISSUANCE_TIMEOUT)
    ca_secret = Secret.get(root.raw["spec"]["secretName"], namespace=namespace, api=kr8s_api)
    serving_secret = Secret.get(SERVING_SECRET, namespace=namespace, api=kr8s_api)

    def signed_by_current_ca() -> bool:
        ca_secret.refresh()
        serving_secret.refresh()
        return secret_files(serving_secret)["ca.crt"] == secret_files(ca_secret)["tls.crt"]

    if not signed_by_current_ca():
        serving = Certificate.get(f"{release}-serving-cert", namespace=namespace, api=kr8s_api)
        revision = serving.raw["status"]["revision"]
        request_renewal(serving)
        wait_for(
            "the serving certificate reissued by the current CA",
            signed_by_current_ca,
            timeout=ISSUANCE_TIMEOUT,
        )
        wait_for_revision(serving, revision + 1)  # a test's own renewal counts from there
    return serving_secret


def wait_for_revision(certificate: Any, revision: int) -> None:
    """Wait until a renewed Certificate's status has caught up: cert-manager writes the Secret
    before the status, and Ready stays True throughout a renewal; only the revision tells."""
    wait_for(
        f"the Certificate Ready at revision {revision}",
        lambda: is_ready(certificate) and certificate.raw["status"].get("revision") == revision,
        timeout=ISSUANCE_TIMEOUT,
    )


def bundle_trusts(bundle: bytes, ca_pem: bytes) -> bool:
    """Whether a caBundle holds the CA certificate in ``ca_pem``. The cainjector keeps the CAs it
    injected before beside a new one (so a reissued CA does not break the webhook's callers): a
    bundle can hold several."""
    if not bundle.strip():
        return False
    return x509.load_pem_x509_certificate(ca_pem) in x509.load_pem_x509_certificates(bundle)


def is_ready(certificate: Any) -> bool:
    certificate.refresh()
    return is_condition_true(certificate.raw, "Ready")


def secret_files(secret: Any) -> dict[str, bytes]:
    return {key: base64.b64decode(value) for key, value in (secret.raw.get("data") or {}).items()}


def sync_secret_volume(volume: Path, files: dict[str, bytes]) -> None:
    """Update ``volume`` like the kubelet updates a Secret volume: the keys are symlinks through
    ``..data``, which is swapped to a complete new snapshot in one rename."""
    volume.mkdir(parents=True, exist_ok=True)
    snapshot = Path(os.path.realpath(volume / "..data")) if (volume / "..data").exists() else None
    fresh = volume / f"..{time.strftime('%Y_%m_%d_%H_%M_%S')}.{time.monotonic_ns()}"
    fresh.mkdir(mode=0o700)
    for name, content in files.items():
        (fresh / name).write_bytes(content)
    staging = volume / "..data_tmp"
    staging.symlink_to(fresh.name)
    os.replace(staging, volume / "..data")
    for name in files:
        link = volume / name
        if not link.is_symlink():
            link.symlink_to(Path("..data") / name)
    if snapshot is not None and snapshot != fresh.resolve():
        for path in snapshot.iterdir():
            path.unlink()
        snapshot.rmdir()
