"""Key pairs: a self-signed CA, serving certificates signed by it, or one self-signed serving
certificate (cryptography); used by the metrics endpoint and the webhook server alike, and by the
test harness's cluster, whose CA also signs client certificates (the API server authenticates
their subject).

ECDSA P-256 keys: the apiserver (Go) and every TLS 1.2+ client accept them, and handshakes cost a
fraction of RSA-4096's, which matters when the apiserver opens many connections under load.
Generation is deterministic apart from keys and serial numbers: the caller passes ``now``.

Pairs given to the server (cert-manager issues RSA keys by default) may be RSA, ECDSA or Ed25519:
everything Go's TLS stack and OpenSSL both serve.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from manager.runtime.tls.errors import CertificateError

__all__ = [
    "LOCAL_DNS_NAMES",
    "LOCAL_IP_ADDRESSES",
    "KeyPair",
    "PrivateKey",
    "generate_ca",
    "generate_client_pair",
    "generate_self_signed",
    "generate_serving_pair",
    "serving_dns_names",
    "subject_alternative_names",
]

# Certificates start a little in the past so that a node whose clock lags still accepts them.
CLOCK_SKEW_ALLOWANCE = timedelta(minutes=5)
LOCAL_DNS_NAMES = ("localhost",)
LOCAL_IP_ADDRESSES = ("127.0.0.1",)

#: Private keys a served (or signing) pair may hold.
PrivateKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey


@dataclass(frozen=True)
class KeyPair:
    """A PEM certificate and its PEM (PKCS#8, unencrypted) private key."""

    cert_pem: bytes
    key_pem: bytes

    @cached_property
    def certificate(self) -> x509.Certificate:
        try:
            return x509.load_pem_x509_certificate(self.cert_pem)
        except ValueError as error:
            raise CertificateError(f"unreadable certificate: {error}") from None

    @cached_property
    def private_key(self) -> PrivateKey:
        try:
            key = serialization.load_pem_private_key(self.key_pem, password=None)
        except (ValueError, TypeError, UnsupportedAlgorithm) as error:
            raise CertificateError(f"unreadable private key: {error}") from None
        if not isinstance(
            key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey
        ):
            raise CertificateError(
                f"private key of type {type(key).__name__} cannot be served; "
                "use an RSA, ECDSA or Ed25519 key"
            )
        return key

    def check(self, now: datetime) -> None:
        """Raise CertificateError unless the key matches and ``now`` is within the validity."""
        certificate = self.certificate
        if certificate.public_key() != self.private_key.public_key():
            raise CertificateError("private key does not match the certificate")
        if now < certificate.not_valid_before_utc:
            raise CertificateError(
                f"certificate not valid before {certificate.not_valid_before_utc}"
            )
        if now >= certificate.not_valid_after_utc:
            raise CertificateError(f"certificate expired at {certificate.not_valid_after_utc}")

    @property
    def not_after(self) -> datetime:
        return self.certificate.not_valid_after_utc


def serving_dns_names(
    service: str, namespace: str, cluster_domain: str = "cluster.local"
) -> tuple[str, ...]:
    """Every name the apiserver may use to reach the webhook Service."""
    return (
        service,
        f"{service}.{namespace}",
        f"{service}.{namespace}.svc",
        f"{service}.{namespace}.svc.{cluster_domain}",
    )


def generate_ca(
    now: datetime,
    validity: timedelta,
    *,
    common_name: str = "Serving CA",
    organization: str | None = None,
) -> KeyPair:
    key = ec.generate_private_key(ec.SECP256R1())
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization is not None:
        attributes.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    name = x509.Name(attributes)
    certificate = (
        _builder(name, name, key.public_key(), now, validity)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return _pair(certificate, key)


def generate_serving_pair(
    ca: KeyPair,
    now: datetime,
    validity: timedelta,
    *,
    dns_names: Sequence[str],
    ip_addresses: Sequence[str] = (),
    common_name: str | None = None,
) -> KeyPair:
    """A serving certificate for ``dns_names`` and ``ip_addresses``, signed by ``ca``; its
    subject is ``common_name`` (default: the first name)."""
    if not dns_names and not ip_addresses:
        raise CertificateError("a serving certificate needs at least one DNS name or IP address")
    key = ec.generate_private_key(ec.SECP256R1())
    common_name = common_name or (dns_names[0] if dns_names else ip_addresses[0])
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    builder = _serving_builder(
        subject,
        ca.certificate.subject,
        key,
        now,
        _within(ca, now, validity),
        dns_names,
        ip_addresses,
    )
    return _pair(_signed_by(ca, builder), key)


def generate_client_pair(
    ca: KeyPair,
    now: datetime,
    validity: timedelta,
    *,
    common_name: str,
    organization: str | None = None,
) -> KeyPair:
    """A client certificate signed by ``ca``: a Kubernetes API server trusting ``ca`` takes
    ``common_name`` as the user and ``organization`` as a group (``system:masters``,
    ``system:nodes``...)."""
    key = ec.generate_private_key(ec.SECP256R1())
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        attributes.insert(0, x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    builder = (
        _builder(
            x509.Name(attributes),
            ca.certificate.subject,
            key.public_key(),
            now,
            _within(ca, now, validity),
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    )
    return _pair(_signed_by(ca, builder), key)


def _within(ca: KeyPair, now: datetime, validity: timedelta) -> timedelta:
    # Never outlive the CA: a leaf valid past its issuer would fail verification anyway.
    return min(validity, ca.not_after - now)


def _signed_by(ca: KeyPair, builder: x509.CertificateBuilder) -> x509.Certificate:
    return builder.add_extension(
        x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.private_key.public_key()),
        critical=False,
    ).sign(ca.private_key, _signature_hash(ca.private_key))


def generate_self_signed(
    now: datetime,
    validity: timedelta,
    *,
    common_name: str,
    dns_names: Sequence[str] = LOCAL_DNS_NAMES,
    ip_addresses: Sequence[str] = LOCAL_IP_ADDRESSES,
) -> KeyPair:
    """A serving certificate signed by its own key, for clients that do not verify it (the
    metrics endpoint's scrapers rely on their bearer token instead)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    builder = _serving_builder(name, name, key, now, validity, dns_names, ip_addresses)
    return _pair(builder.sign(key, hashes.SHA256()), key)


def _serving_builder(
    subject: x509.Name,
    issuer: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    now: datetime,
    validity: timedelta,
    dns_names: Sequence[str],
    ip_addresses: Sequence[str],
) -> x509.CertificateBuilder:
    names: list[x509.GeneralName] = [x509.DNSName(name) for name in dns_names]
    names += [x509.IPAddress(ipaddress.ip_address(address)) for address in ip_addresses]
    return (
        _builder(subject, issuer, key.public_key(), now, validity)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    )


def _signature_hash(key: PrivateKey) -> hashes.SHA256 | None:
    # Ed25519 signs without a separate digest; cryptography wants None for it.
    return None if isinstance(key, ed25519.Ed25519PrivateKey) else hashes.SHA256()


def _builder(
    subject: x509.Name,
    issuer: x509.Name,
    public_key: ec.EllipticCurvePublicKey,
    now: datetime,
    validity: timedelta,
) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW_ALLOWANCE)
        .not_valid_after(now + validity)
    )


def _pair(certificate: x509.Certificate, key: PrivateKey) -> KeyPair:
    return KeyPair(
        cert_pem=certificate.public_bytes(serialization.Encoding.PEM),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


def subject_alternative_names(certificate: x509.Certificate) -> frozenset[str]:
    """DNS names and IP addresses (as text) the certificate is valid for."""
    try:
        extension = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    except x509.ExtensionNotFound:
        return frozenset()
    dns = extension.value.get_values_for_type(x509.DNSName)
    ips = extension.value.get_values_for_type(x509.IPAddress)
    return frozenset(dns) | frozenset(str(ip) for ip in ips)
