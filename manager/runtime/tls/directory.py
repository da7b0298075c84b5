"""Certificates read from a directory (cert-manager's mounted Secret, or any external files).

The directory is polled, like controller-runtime's certwatcher does as its fallback: a mounted
Secret is updated by swapping a symlink, which file-change notifications report unreliably, and
reading two small files every few seconds costs nothing. A pair that fails to load is reported and
skipped; the server keeps serving the previous one.

The kubelet swaps a Secret volume's content in one step (the ``..data`` symlink), but two files
are two reads: a swap between them would pair the old certificate with the new key. The
certificate is read again after the key and the pair retried until both reads agree, so a
renewal never shows up as a spurious "unusable" pair.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import anyio.abc

from manager.runtime.logging import get_logger
from manager.runtime.tls.errors import CertificateError
from manager.runtime.tls.key_pair import KeyPair
from manager.runtime.tls.server_context import ReloadableServerTLS

__all__ = [
    "DEFAULT_POLL_INTERVAL",
    "TLS_CERT_KEY",
    "TLS_KEY_KEY",
    "DirectoryCertificates",
    "read_pair",
]

_log = get_logger(__name__)

TLS_CERT_KEY = "tls.crt"
TLS_KEY_KEY = "tls.key"

DEFAULT_POLL_INTERVAL = timedelta(seconds=10)
_CONSISTENT_READ_ATTEMPTS = 3


class DirectoryCertificates:
    """Serves ``cert_name``/``key_name`` (``tls.crt``/``tls.key``) from ``cert_dir`` and reloads
    them when they change."""

    def __init__(
        self,
        cert_dir: Path,
        *,
        poll_interval: timedelta = DEFAULT_POLL_INTERVAL,
        cert_name: str = TLS_CERT_KEY,
        key_name: str = TLS_KEY_KEY,
    ) -> None:
        self.cert_dir = cert_dir
        self.cert_name = cert_name
        self.key_name = key_name
        self._poll_seconds = poll_interval.total_seconds()

    async def run(
        self,
        tls: ReloadableServerTLS,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        started = False
        while True:
            self.prepare(datetime.now(UTC))
            if self._reload(tls) and not started:
                task_status.started()
                started = True
            await anyio.sleep(self._poll_seconds)

    def prepare(self, now: datetime) -> None:
        """Runs before each load; externally managed files need nothing."""

    def _reload(self, tls: ReloadableServerTLS) -> bool:
        """Load the files if they changed; True when a valid pair is being served."""
        try:
            pair = self.read_pair()
        except OSError as error:
            if not tls.has_certificate:
                _log.info(
                    "waiting for certificate files", cert_dir=str(self.cert_dir), error=str(error)
                )
            return tls.has_certificate
        try:
            pair.check(datetime.now(UTC))
            if tls.load(pair.cert_pem, pair.key_pem):
                _log.info(
                    "serving certificate loaded",
                    cert_dir=str(self.cert_dir),
                    serial=f"{pair.certificate.serial_number:x}",
                    not_after=str(pair.not_after),
                )
        except CertificateError as error:
            _log.error("certificate files unusable", cert_dir=str(self.cert_dir), error=str(error))
        return tls.has_certificate

    def read_pair(self) -> KeyPair:
        """The certificate and key as one snapshot of the directory (OSError when missing)."""
        return read_pair(self.cert_dir, self.cert_name, self.key_name)


def read_pair(
    directory: Path, cert_name: str = TLS_CERT_KEY, key_name: str = TLS_KEY_KEY
) -> KeyPair:
    """The certificate and key in `directory` as one snapshot (OSError when one is missing)."""
    cert_path, key_path = directory / cert_name, directory / key_name
    cert_pem = cert_path.read_bytes()
    for _ in range(_CONSISTENT_READ_ATTEMPTS):
        key_pem = key_path.read_bytes()
        again = cert_path.read_bytes()
        if again == cert_pem:
            break
        cert_pem = again  # swapped while reading: the key may be the new one's, read it again
    return KeyPair(cert_pem, key_pem)
