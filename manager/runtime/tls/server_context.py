"""The server's SSLContext, whose certificate can be replaced while it serves.

OpenSSL copies the context's certificate into each connection when the connection is created, so
loading a new pair into the live context changes what the next handshake presents and leaves open
connections untouched: rotation without a restart and without dropping anyone. The new pair is
first tried on a scratch context, so a bad pair never half-replaces a good one; loading happens on
the event loop thread, between handshakes, so no handshake sees a certificate without its key.
"""

from __future__ import annotations

import hashlib
import os
import ssl
import tempfile
from pathlib import Path

from manager.runtime.tls.errors import CertificateError

__all__ = ["ReloadableServerTLS"]


class ReloadableServerTLS:
    """A TLS 1.2+ server context (HTTP/1.1 only) with a replaceable certificate."""

    def __init__(self) -> None:
        self.context = _server_context()
        self._fingerprint: str | None = None

    @property
    def has_certificate(self) -> bool:
        return self._fingerprint is not None

    def load(self, cert_pem: bytes, key_pem: bytes) -> bool:
        """Serve this pair from the next handshake on; False when it is already being served.

        Raises CertificateError (and keeps the current pair) when the pair is unusable.
        """
        fingerprint = hashlib.sha256(cert_pem + b"\0" + key_pem).hexdigest()
        if fingerprint == self._fingerprint:
            return False
        # ssl loads certificates only from files: the pair is written to a private scratch
        # directory for the time of the load and removed at once, so no key stays on disk.
        with tempfile.TemporaryDirectory(prefix="serving-tls-") as scratch:
            cert_path, key_path = _write(Path(scratch), cert_pem, key_pem)
            try:
                _server_context().load_cert_chain(cert_path, key_path)
            except (ssl.SSLError, OSError) as error:
                raise CertificateError(f"certificate and key cannot be served: {error}") from None
            self.context.load_cert_chain(cert_path, key_path)
        self._fingerprint = fingerprint
        return True


def _write(directory: Path, cert_pem: bytes, key_pem: bytes) -> tuple[Path, Path]:
    cert_path, key_path = directory / "tls.crt", directory / "tls.key"
    cert_path.write_bytes(cert_pem)
    descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as key_file:
        key_file.write(key_pem)
    return cert_path, key_path


def _server_context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    # HTTP/2 stays off (Rapid Reset, CVE-2023-44487), as in kubebuilder scaffolds.
    context.set_alpn_protocols(["http/1.1"])
    return context
