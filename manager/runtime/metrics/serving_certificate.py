"""The serving certificate of the secure metrics endpoint, as controller-runtime chooses it.

Without a certificate directory the server makes a self-signed certificate for `localhost` and
127.0.0.1 (named by the application) when it starts, as controller-runtime does, kept in memory
only and made again a month before it expires; scrapers then skip verification
(`insecureSkipVerify`) and rely on the bearer token for the security that matters. With a directory
(`--metrics-cert-path`, e.g. a mounted cert-manager Secret) the named files are served and polled
every 10 seconds, like controller-runtime's certwatcher: a changed pair is loaded into the live
context, so the next handshake presents it and open connections are untouched; a pair that does not
load is logged and the previous one kept. Loading and key pairs are `manager.runtime.tls`'s, shared
with the webhook server.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio

from manager.runtime.logging import get_logger
from manager.runtime.tls import (
    TLS_CERT_KEY,
    TLS_KEY_KEY,
    CertificateError,
    KeyPair,
    ReloadableServerTLS,
    generate_self_signed,
    read_pair,
)

__all__ = ["CertificateFiles", "ServingCertificate"]

log = get_logger(__name__)

SELF_SIGNED_VALIDITY = timedelta(days=365)
RENEW_BEFORE = timedelta(days=30)
POLL_INTERVAL = 10.0


@dataclass(frozen=True, slots=True)
class CertificateFiles:
    """Where the served pair lives (controller-runtime's `CertDir`, `CertName`, `KeyName`)."""

    directory: Path
    cert_name: str = TLS_CERT_KEY
    key_name: str = TLS_KEY_KEY

    def read(self) -> KeyPair:
        try:
            return read_pair(self.directory, self.cert_name, self.key_name)
        except OSError as error:
            raise CertificateError(f"cannot read the certificate files: {error}") from None


class ServingCertificate:
    """A TLS 1.2+ server context (HTTP/1.1 only) whose certificate is kept current by `run`."""

    def __init__(self, files: CertificateFiles | None = None, *, self_signed_name: str) -> None:
        """Load the first pair now: files that cannot be served raise `CertificateError`.
        `self_signed_name`: the common name of the certificate made without `files`."""
        self.files = files
        self.self_signed_name = self_signed_name
        self._tls = ReloadableServerTLS()
        self.context = self._tls.context
        self._not_after = datetime.min.replace(tzinfo=UTC)
        if files is None:
            self._renew_self_signed(datetime.now(UTC))
        else:
            self._load(files.read())

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
            changed = self._load(self.files.read())
        except CertificateError as error:
            log.error("metrics certificate not reloaded", error=str(error))
            return False
        if changed:
            log.info("metrics certificate reloaded", not_after=self._not_after.isoformat())
        return changed

    def _renew_self_signed(self, now: datetime) -> None:
        self._load(
            generate_self_signed(now, SELF_SIGNED_VALIDITY, common_name=self.self_signed_name)
        )

    def _load(self, pair: KeyPair) -> bool:
        not_after = pair.not_after  # first: an unreadable certificate raises before loading
        if not self._tls.load(pair.cert_pem, pair.key_pem):
            return False
        self._not_after = not_after
        return True
