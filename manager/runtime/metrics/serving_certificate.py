"""The serving certificate of the secure metrics endpoint, as controller-runtime chooses it.

Without a certificate directory the server makes a self-signed certificate for `localhost` and
127.0.0.1 when it starts (controller-runtime does the same), kept in memory only and made again
a month before it expires; scrapers then skip verification (`insecureSkipVerify`) and rely on
the bearer token for the security that matters. With a directory (`--metrics-cert-path`, e.g. a
mounted cert-manager Secret) the named files are served and polled every 10 seconds, like
controller-runtime's certwatcher: a changed pair is loaded into the live context, so the next
handshake presents it and open connections are untouched; a pair that does not load is logged
and the previous one kept.

Python's `ssl` loads certificates only from files: a pair is written to a private temporary
directory for the time of the load and removed at once.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import ssl
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from manager.runtime.logging import get_logger

__all__ = ["CertificateFiles", "CertificateFilesError", "ServingCertificate"]

log = get_logger("manager.runtime.metrics")

SELF_SIGNED_VALIDITY = timedelta(days=365)
RENEW_BEFORE = timedelta(days=30)
POLL_INTERVAL = 10.0
_SELF_SIGNED_NAMES = ("localhost",)
_SELF_SIGNED_ADDRESSES = ("127.0.0.1",)


class CertificateFilesError(Exception):
    """The certificate files cannot be read or served."""


@dataclass(frozen=True, slots=True)
class CertificateFiles:
    """Where the served pair lives (controller-runtime's `CertDir`, `CertName`, `KeyName`)."""

    directory: Path
    cert_name: str = "tls.crt"
    key_name: str = "tls.key"

    def read(self) -> tuple[bytes, bytes]:
        try:
            return (
                (self.directory / self.cert_name).read_bytes(),
                (self.directory / self.key_name).read_bytes(),
            )
        except OSError as error:
            raise CertificateFilesError(f"cannot read the certificate files: {error}") from None


class ServingCertificate:
    """A TLS 1.2+ server context (HTTP/1.1 only) whose certificate is kept current by `run`."""

    def __init__(self, files: CertificateFiles | None = None) -> None:
        """Load the first pair now: files that cannot be served raise `CertificateFilesError`."""
        self.files = files
        self.context = _server_context()
        self._fingerprint = ""
        self._not_after = datetime.min.replace(tzinfo=UTC)
        if files is None:
            self._renew_self_signed(datetime.now(UTC))
        else:
            self._load(*files.read())

    @property
    def not_after(self) -> datetime:
        return self._not_after

    async def run(self) -> None:
        """Keep the certificate current until cancelled."""
        while True:
            await anyio.sleep(POLL_INTERVAL)
            self.refresh(datetime.now(UTC))

    def refresh(self, now: datetime) -> bool:
        """Load changed files, or renew a self-signed certificate near its end; True when the
        served certificate changed. Never raises: a failure is logged and the old pair kept."""
        if self.files is None:
            if now < self._not_after - RENEW_BEFORE:
                return False
            self._renew_self_signed(now)
            return True
        try:
            changed = self._load(*self.files.read())
        except CertificateFilesError as error:
            log.error("metrics certificate not reloaded", error=str(error))
            return False
        if changed:
            log.info("metrics certificate reloaded", not_after=self._not_after.isoformat())
        return changed

    def _renew_self_signed(self, now: datetime) -> None:
        self._load(*self_signed_pair(now))

    def _load(self, cert_pem: bytes, key_pem: bytes) -> bool:
        fingerprint = hashlib.sha256(cert_pem + b"\0" + key_pem).hexdigest()
        if fingerprint == self._fingerprint:
            return False
        try:
            not_after = x509.load_pem_x509_certificate(cert_pem).not_valid_after_utc
        except ValueError as error:
            raise CertificateFilesError(f"unreadable certificate: {error}") from None
        with tempfile.TemporaryDirectory(prefix="dynamo-metrics-tls-") as scratch:
            cert_path, key_path = Path(scratch) / "tls.crt", Path(scratch) / "tls.key"
            cert_path.write_bytes(cert_pem)
            descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "wb") as key_file:
                key_file.write(key_pem)
            try:
                # A scratch context first, so a bad pair never half-replaces a good one.
                _server_context().load_cert_chain(cert_path, key_path)
                self.context.load_cert_chain(cert_path, key_path)
            except (ssl.SSLError, OSError) as error:
                raise CertificateFilesError(
                    f"certificate and key cannot be served: {error}"
                ) from None
        self._fingerprint = fingerprint
        self._not_after = not_after
        return True


def self_signed_pair(now: datetime) -> tuple[bytes, bytes]:
    """A self-signed ECDSA P-256 certificate for localhost and 127.0.0.1, and its key (PEM)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dynamo-operator-metrics")])
    alternative_names: list[x509.GeneralName] = [x509.DNSName(n) for n in _SELF_SIGNED_NAMES]
    alternative_names += [
        x509.IPAddress(ipaddress.ip_address(address)) for address in _SELF_SIGNED_ADDRESSES
    ]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))  # a node whose clock lags accepts it too
        .not_valid_after(now + SELF_SIGNED_VALIDITY)
        .add_extension(x509.SubjectAlternativeName(alternative_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    return (
        certificate.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


def _server_context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    # HTTP/2 stays off (Rapid Reset, CVE-2023-44487), as kubebuilder's `--enable-http2=false`.
    context.set_alpn_protocols(["http/1.1"])
    return context
