"""Certificates read from a directory (cert-manager's mounted Secret, or any external files).

The directory is polled, like controller-runtime's certwatcher does as its fallback: a mounted
Secret is updated by swapping a symlink, which file-change notifications report unreliably, and
reading two small files every few seconds costs nothing. A pair that fails to load is reported and
skipped; the server keeps serving the previous one.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import anyio.abc
import structlog

from webhooks.certificates.generation import KeyPair
from webhooks.certificates.rotation import TLS_CERT_KEY, TLS_KEY_KEY
from webhooks.certificates.tls import ReloadableServerTLS
from webhooks.errors import CertificateError

_log = structlog.get_logger("webhooks.certificates")

DEFAULT_POLL_INTERVAL = timedelta(seconds=10)


class DirectoryCertificates:
    """Serves ``tls.crt``/``tls.key`` from ``cert_dir`` and reloads them when they change."""

    def __init__(self, cert_dir: Path, *, poll_interval: timedelta = DEFAULT_POLL_INTERVAL) -> None:
        self.cert_dir = cert_dir
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
            pair = KeyPair(
                (self.cert_dir / TLS_CERT_KEY).read_bytes(),
                (self.cert_dir / TLS_KEY_KEY).read_bytes(),
            )
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
                    not_after=str(pair.not_after),
                )
        except CertificateError as error:
            _log.error("certificate files unusable", cert_dir=str(self.cert_dir), error=str(error))
        return tls.has_certificate
