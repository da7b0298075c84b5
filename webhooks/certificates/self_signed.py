"""Self-signed certificates in a directory, for standalone runs: generated, renewed and repaired.

`dynamo-operator webhook-server` keeps ``ca.crt``/``ca.key`` and a localhost serving pair
``tls.crt``/``tls.key`` in its ``--cert-dir``. Before every load (`DirectoryCertificates` polls),
the pair is planned like the operator-managed Secret (`plan_certificates`): a missing, corrupt,
mismatched or expired file is regenerated, and the serving certificate is renewed a month before
it expires while the CA stays, so clients that trust ``ca.crt`` keep trusting the server.

Only what this code wrote is ever replaced. ``.self-signed`` records the SHA-256 of the
``tls.crt`` it wrote; a directory holding a readable certificate it did not write (a user's, or
one from cert-manager) is served as it is, or reported and waited for when it is unusable, never
overwritten. What it may repair is its own pair, and files that hold no certificate at all.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509

from manager.runtime.logging import get_logger
from manager.runtime.tls.directory import (
    DEFAULT_POLL_INTERVAL,
    TLS_CERT_KEY,
    TLS_KEY_KEY,
    DirectoryCertificates,
)
from manager.runtime.tls.errors import CertificateError
from manager.runtime.tls.key_pair import LOCAL_DNS_NAMES, LOCAL_IP_ADDRESSES, KeyPair
from webhooks.certificates.rotation import (
    CA_CERT_KEY,
    CA_COMMON_NAME,
    CA_KEY_KEY,
    CertificatePolicy,
    ManagedCertificates,
    plan_certificates,
)

_log = get_logger(__name__)

MARKER = ".self-signed"
LOCAL_POLICY = CertificatePolicy(dns_names=LOCAL_DNS_NAMES, ip_addresses=LOCAL_IP_ADDRESSES)
_FILES = (TLS_CERT_KEY, TLS_KEY_KEY, CA_CERT_KEY, CA_KEY_KEY)
_PRIVATE = frozenset({TLS_KEY_KEY, CA_KEY_KEY})


class SelfSignedCertificates(DirectoryCertificates):
    """Serves the directory's pair, (re)generating it first whenever it is ours and unusable."""

    def __init__(
        self,
        cert_dir: Path,
        *,
        poll_interval: timedelta = DEFAULT_POLL_INTERVAL,
        policy: CertificatePolicy = LOCAL_POLICY,
    ) -> None:
        super().__init__(cert_dir, poll_interval=poll_interval)
        self.policy = policy
        self._foreign_reported = False

    def prepare(self, now: datetime | None = None) -> None:
        """Write a usable pair unless the directory holds someone else's certificate."""
        now = now or datetime.now(UTC)
        files = self._read()
        if not self._is_ours(files):
            if not self._foreign_reported:
                _log.info(
                    "serving certificate files not written here; never replacing them",
                    cert_dir=str(self.cert_dir),
                )
                self._foreign_reported = True
            return
        current = ManagedCertificates.from_pem(files)
        if current is None and self._serving_still_good(files, now):
            return  # written before ca.key was kept: serve it until it is due
        planned = plan_certificates(current, self.policy, now)
        if planned is current:
            return
        try:
            self._write(planned)
        except OSError as error:
            _log.error(
                "cannot write certificate files", cert_dir=str(self.cert_dir), error=str(error)
            )
            return
        _log.info(
            "self-signed certificate written",
            cert_dir=str(self.cert_dir),
            reason="missing or unusable" if current is None else "serving pair renewed",
            not_after=str(planned.serving.not_after),
        )

    def _read(self) -> dict[str, bytes]:
        files: dict[str, bytes] = {}
        for name in _FILES:
            try:
                files[name] = (self.cert_dir / name).read_bytes()
            except OSError:
                continue
        return files

    def _is_ours(self, files: dict[str, bytes]) -> bool:
        certificate = files.get(TLS_CERT_KEY)
        if certificate is None and TLS_KEY_KEY not in files:
            return True  # nothing to serve yet: generating overwrites nothing
        try:
            recorded = (self.cert_dir / MARKER).read_text().strip()
        except OSError:
            return _generated_before_markers(files)
        if certificate is None or hashlib.sha256(certificate).hexdigest() == recorded:
            return True
        return not _holds_a_certificate(certificate)  # garbage is no one's certificate

    def _serving_still_good(self, files: dict[str, bytes], now: datetime) -> bool:
        if TLS_CERT_KEY not in files or TLS_KEY_KEY not in files:
            return False
        pair = KeyPair(files[TLS_CERT_KEY], files[TLS_KEY_KEY])
        try:
            pair.check(now)
        except CertificateError:
            return False
        return pair.not_after - now > self.policy.renew_before

    def _write(self, planned: ManagedCertificates) -> None:
        self.cert_dir.mkdir(parents=True, exist_ok=True)
        contents = planned.to_pem()
        # The marker first: a crash between the writes leaves files this code still owns.
        _write_atomically(
            self.cert_dir / MARKER, hashlib.sha256(contents[TLS_CERT_KEY]).hexdigest().encode()
        )
        for name in (CA_CERT_KEY, CA_KEY_KEY, TLS_KEY_KEY, TLS_CERT_KEY):
            _write_atomically(self.cert_dir / name, contents[name], private=name in _PRIVATE)


def _holds_a_certificate(pem: bytes) -> bool:
    try:
        x509.load_pem_x509_certificate(pem)
    except ValueError:
        return False
    return True


def _generated_before_markers(files: dict[str, bytes]) -> bool:
    """Directories written by earlier versions: no marker, but our CA issued the certificate."""
    try:
        certificate = x509.load_pem_x509_certificate(files[TLS_CERT_KEY])
        ca = x509.load_pem_x509_certificate(files[CA_CERT_KEY])
    except (KeyError, ValueError):
        return False
    names = ca.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    return certificate.issuer == ca.subject and bool(names) and names[0].value == CA_COMMON_NAME


def _write_atomically(path: Path, data: bytes, *, private: bool = False) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o600 if private else 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
