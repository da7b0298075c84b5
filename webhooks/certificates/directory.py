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

from webhooks.certificates.generation import (
    LOCAL_DNS_NAMES,
    LOCAL_IP_ADDRESSES,
    KeyPair,
    generate_ca,
    generate_serving_pair,
)
from webhooks.certificates.rotation import CA_CERT_KEY, TLS_CERT_KEY, TLS_KEY_KEY
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
            if self._reload(tls) and not started:
                task_status.started()
                started = True
            await anyio.sleep(self._poll_seconds)

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


def ensure_self_signed_files(cert_dir: Path, *, validity: timedelta = timedelta(days=365)) -> bool:
    """Write a CA and a serving pair for localhost/127.0.0.1 unless ``tls.crt``/``tls.key`` exist.

    For standalone and local runs; returns True when files were written. ``ca.crt`` is what a
    client (or a webhook configuration's caBundle) must trust.
    """
    if (cert_dir / TLS_CERT_KEY).exists() and (cert_dir / TLS_KEY_KEY).exists():
        return False
    now = datetime.now(UTC)
    ca = generate_ca(now, validity)
    serving = generate_serving_pair(
        ca, now, validity, dns_names=LOCAL_DNS_NAMES, ip_addresses=LOCAL_IP_ADDRESSES
    )
    cert_dir.mkdir(parents=True, exist_ok=True)
    (cert_dir / CA_CERT_KEY).write_bytes(ca.cert_pem)
    (cert_dir / TLS_CERT_KEY).write_bytes(serving.cert_pem)
    key_path = cert_dir / TLS_KEY_KEY
    key_path.touch(mode=0o600)
    key_path.write_bytes(serving.key_pem)
    return True
