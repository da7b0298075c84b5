"""Deciding, purely, whether the operator-managed certificates must be (re)generated.

The CA lives long and the serving certificate is renewed when fewer than ``renew_before`` remain.
Renewing only the leaf keeps the caBundle the apiserver trusts unchanged, so a rotation never opens
a window where the apiserver and the server disagree. When the CA itself must be replaced, the
new ``ca.crt`` carries both the new and the still-valid old CA, so replicas still serving a leaf
of the old CA keep being trusted until they pick up the new one.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization

from manager.runtime.tls.directory import TLS_CERT_KEY, TLS_KEY_KEY
from manager.runtime.tls.errors import CertificateError
from manager.runtime.tls.key_pair import (
    KeyPair,
    generate_ca,
    generate_serving_pair,
    subject_alternative_names,
)

CA_COMMON_NAME = "Dynamo Webhook CA"
ORGANIZATION = "NVIDIA"
CA_CERT_KEY = "ca.crt"
# The CA's key must be kept to sign renewed leaves without changing the trusted CA.
CA_KEY_KEY = "ca.key"


@dataclass(frozen=True)
class CertificatePolicy:
    dns_names: tuple[str, ...]
    ip_addresses: tuple[str, ...] = ()
    ca_validity: timedelta = timedelta(days=3650)
    serving_validity: timedelta = timedelta(days=365)
    renew_before: timedelta = timedelta(days=30)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.dns_names) | frozenset(self.ip_addresses)


@dataclass(frozen=True)
class ManagedCertificates:
    """The content of the ``webhook-server-cert`` Secret."""

    ca: KeyPair
    serving: KeyPair
    ca_bundle_pem: bytes = field(default=b"")

    def to_secret_data(self) -> dict[str, str]:
        return {key: base64.b64encode(value).decode() for key, value in self.to_pem().items()}

    @classmethod
    def from_secret_data(cls, data: Mapping[str, str] | None) -> ManagedCertificates | None:
        """Read a Secret's ``data``; None when anything is missing or not base64."""
        if not data:
            return None
        try:
            raw = {key: base64.b64decode(data[key], validate=True) for key in _SECRET_KEYS}
        except (KeyError, binascii.Error, TypeError):
            return None
        return cls.from_pem(raw)

    @classmethod
    def from_pem(cls, files: Mapping[str, bytes]) -> ManagedCertificates | None:
        """Read ``tls.crt``, ``tls.key``, ``ca.crt`` and ``ca.key`` (PEM); None when one is missing
        or the CA cannot sign. The serving pair is checked later, by ``plan_certificates``."""
        if any(key not in files for key in _SECRET_KEYS):
            return None
        ca = _signing_ca(files[CA_CERT_KEY], files[CA_KEY_KEY])
        if ca is None:
            return None
        serving = KeyPair(files[TLS_CERT_KEY], files[TLS_KEY_KEY])
        return cls(ca=ca, serving=serving, ca_bundle_pem=files[CA_CERT_KEY])

    def to_pem(self) -> dict[str, bytes]:
        """The four files (PEM) that ``from_pem`` reads back."""
        return {
            TLS_CERT_KEY: self.serving.cert_pem,
            TLS_KEY_KEY: self.serving.key_pem,
            CA_CERT_KEY: self.ca_bundle_pem or self.ca.cert_pem,
            CA_KEY_KEY: self.ca.key_pem,
        }

    def renewal_due(self, policy: CertificatePolicy) -> datetime:
        return min(self.ca.not_after, self.serving.not_after) - policy.renew_before


_SECRET_KEYS = (TLS_CERT_KEY, TLS_KEY_KEY, CA_CERT_KEY, CA_KEY_KEY)


def _signing_ca(bundle_pem: bytes, key_pem: bytes) -> KeyPair | None:
    """The CA of the bundle whose key we hold (the bundle may also carry a retiring CA)."""
    try:
        certificates = x509.load_pem_x509_certificates(bundle_pem)
        public_key = serialization.load_pem_private_key(key_pem, password=None).public_key()
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return None
    for certificate in certificates:
        if certificate.public_key() == public_key:
            return KeyPair(certificate.public_bytes(serialization.Encoding.PEM), key_pem)
    return None


def plan_certificates(
    current: ManagedCertificates | None, policy: CertificatePolicy, now: datetime
) -> ManagedCertificates:
    """Return ``current`` itself when it is still good, else what should replace it."""
    if current is None or not _ca_usable(current.ca, policy, now):
        ca = generate_ca(
            now, policy.ca_validity, common_name=CA_COMMON_NAME, organization=ORGANIZATION
        )
        previous = current.ca_bundle_pem if current is not None else b""
        bundle = ca.cert_pem + _still_valid_certificates(previous, now)
        return ManagedCertificates(
            ca=ca, serving=_new_serving(ca, policy, now), ca_bundle_pem=bundle
        )
    if not _serving_usable(current, policy, now):
        return ManagedCertificates(
            ca=current.ca,
            serving=_new_serving(current.ca, policy, now),
            ca_bundle_pem=_still_valid_certificates(current.ca_bundle_pem, now)
            or current.ca.cert_pem,
        )
    return current


def _new_serving(ca: KeyPair, policy: CertificatePolicy, now: datetime) -> KeyPair:
    return generate_serving_pair(
        ca,
        now,
        policy.serving_validity,
        dns_names=policy.dns_names,
        ip_addresses=policy.ip_addresses,
    )


def _ca_usable(ca: KeyPair, policy: CertificatePolicy, now: datetime) -> bool:
    try:
        ca.check(now)
    except CertificateError:
        return False
    return ca.not_after - now > policy.renew_before


def _serving_usable(current: ManagedCertificates, policy: CertificatePolicy, now: datetime) -> bool:
    serving = current.serving
    try:
        serving.check(now)
        serving.certificate.verify_directly_issued_by(current.ca.certificate)
    except (CertificateError, ValueError, TypeError):
        return False
    if serving.not_after - now <= policy.renew_before:
        return False
    return policy.names <= subject_alternative_names(serving.certificate)


def _still_valid_certificates(bundle_pem: bytes, now: datetime) -> bytes:
    """The certificates of a PEM bundle that have not expired, re-encoded, in order."""
    if not bundle_pem:
        return b""
    try:
        certificates = x509.load_pem_x509_certificates(bundle_pem)
    except ValueError:
        return b""
    return b"".join(
        certificate.public_bytes(serialization.Encoding.PEM)
        for certificate in certificates
        if certificate.not_valid_after_utc > now
    )
