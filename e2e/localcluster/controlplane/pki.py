"""A throw-away PKI for the local control plane, and the admin kubeconfig that uses it.

One CA signs everything: the apiserver's serving certificate (SAN 127.0.0.1), the admin client
certificate (group ``system:masters``, which the apiserver authorizes without RBAC) and any serving
certificate a test needs for a webhook on 127.0.0.1, all made by the operator's own certificate
factory (``manager.runtime.tls``, the one its webhook and metrics servers use); this module writes
them to files. The service-account token key pair is separate because the apiserver wants a plain
key there, not a certificate.
"""

from __future__ import annotations

import base64
import datetime
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from manager.runtime.tls import key_pair as tls_key_pair

_VALIDITY = datetime.timedelta(days=365)


@dataclass(frozen=True)
class KeyPair:
    """PEM files of one certificate and its private key."""

    cert: Path
    key: Path


@dataclass(frozen=True)
class Pki:
    """Every file the control plane's components are started with."""

    ca: KeyPair
    apiserver: KeyPair
    admin: KeyPair
    service_account_key: Path
    service_account_public_key: Path

    def issue_serving_cert(self, directory: Path, name: str) -> KeyPair:
        """Issue a serving certificate for 127.0.0.1/localhost signed by the cluster CA.

        Tests use it for webhook servers: the CA file then goes into the webhook's ``caBundle``.
        """
        return _issue(self.ca, directory, name, common_name=name, server=True)

    def issue_client_cert(
        self, directory: Path, name: str, *, common_name: str, organization: str | None = None
    ) -> KeyPair:
        """Issue a client certificate: the apiserver authenticates CN as the user, O as a group
        (e.g. ``system:node:<name>`` in ``system:nodes`` for a kubelet)."""
        return _issue(self.ca, directory, name, common_name=common_name, organization=organization)

    def issue_serving_cert_for(
        self, directory: Path, name: str, *, names: tuple[str, ...], ips: tuple[str, ...]
    ) -> KeyPair:
        """Issue a serving certificate for localhost/127.0.0.1 plus ``names`` and ``ips``."""
        return _issue(
            self.ca, directory, name, common_name=name, server=True, extra_sans=(names, ips)
        )


def create_pki(
    directory: Path, *, apiserver_names: tuple[str, ...] = (), apiserver_ips: tuple[str, ...] = ()
) -> Pki:
    """A new CA and every certificate signed by it. The apiserver's serving certificate is for
    localhost/127.0.0.1, plus ``apiserver_names``/``apiserver_ips`` (in-cluster clients verify the
    ``kubernetes`` Service's ClusterIP and names)."""
    directory.mkdir(parents=True, exist_ok=True)
    ca = _create_ca(directory)
    apiserver = _issue(
        ca,
        directory,
        "apiserver",
        common_name="kube-apiserver",
        server=True,
        extra_sans=(apiserver_names, apiserver_ips),
    )
    admin = _issue(ca, directory, "admin", common_name="local-admin", organization="system:masters")
    sa_key = ec.generate_private_key(ec.SECP256R1())
    sa_key_path = _write(directory / "service-account.key", _private_pem(sa_key))
    sa_pub_path = _write(
        directory / "service-account.pub",
        sa_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ),
    )
    return Pki(ca, apiserver, admin, sa_key_path, sa_pub_path)


def load_pki(directory: Path) -> Pki:
    """The Pki of an earlier :func:`create_pki` in ``directory`` (files are not re-read)."""

    def pair(name: str) -> KeyPair:
        return KeyPair(directory / f"{name}.crt", directory / f"{name}.key")

    return Pki(
        pair("ca"),
        pair("apiserver"),
        pair("admin"),
        directory / "service-account.key",
        directory / "service-account.pub",
    )


def write_kubeconfig(
    path: Path, *, server: str, pki: Pki, client: KeyPair | None = None, user: str = "local-admin"
) -> Path:
    """A kubeconfig with embedded CA and the admin client certificate (or ``client``'s)."""
    client = client or pki.admin

    def b64(file: Path) -> str:
        return base64.b64encode(file.read_bytes()).decode()

    lines = [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: local",
        "  cluster:",
        f"    server: {server}",
        f"    certificate-authority-data: {b64(pki.ca.cert)}",
        "users:",
        f"- name: {user}",
        "  user:",
        f"    client-certificate-data: {b64(client.cert)}",
        f"    client-key-data: {b64(client.key)}",
        "contexts:",
        "- name: local",
        f"  context: {{cluster: local, user: {user}, namespace: default}}",
        "current-context: local",
    ]
    return _write(path, ("\n".join(lines) + "\n").encode())


def _create_ca(directory: Path) -> KeyPair:
    ca = tls_key_pair.generate_ca(
        datetime.datetime.now(datetime.UTC), _VALIDITY, common_name="dynamo-local-cluster-ca"
    )
    return KeyPair(
        _write(directory / "ca.crt", ca.cert_pem), _write(directory / "ca.key", ca.key_pem)
    )


def _issue(
    ca: KeyPair,
    directory: Path,
    name: str,
    *,
    common_name: str,
    organization: str | None = None,
    server: bool = False,
    extra_sans: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
) -> KeyPair:
    """A certificate signed by the cluster CA, made by the operator's own factory
    (`manager.runtime.tls`): a serving one for loopback plus ``extra_sans``, or a client one."""
    signer = tls_key_pair.KeyPair(ca.cert.read_bytes(), ca.key.read_bytes())
    now = datetime.datetime.now(datetime.UTC)
    if server:
        names, ips = extra_sans
        pair = tls_key_pair.generate_serving_pair(
            signer,
            now,
            _VALIDITY,
            dns_names=tls_key_pair.LOCAL_DNS_NAMES + names,
            ip_addresses=tls_key_pair.LOCAL_IP_ADDRESSES + ips,
            common_name=common_name,
        )
    else:
        pair = tls_key_pair.generate_client_pair(
            signer, now, _VALIDITY, common_name=common_name, organization=organization
        )
    return KeyPair(
        _write(directory / f"{name}.crt", pair.cert_pem),
        _write(directory / f"{name}.key", pair.key_pem),
    )


def _private_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    path.chmod(0o600)
    return path
