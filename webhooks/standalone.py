"""Serving the webhooks without the operator: no Kubernetes, certificates from a directory.

For local development and tests: point a URL-based webhook configuration at the printed URL and
trust the directory's ``ca.crt``. Stops cleanly on SIGTERM or SIGINT.
"""

from __future__ import annotations

import gc
import signal
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

import anyio

import dynamo_operator.validation
from webhooks.certificates.directory import DirectoryCertificates, ensure_self_signed_files
from webhooks.endpoints import DEFAULT_PORT
from webhooks.server import WebhookServer


class CertMode(StrEnum):
    SELF_SIGNED = "self-signed"  # generate a pair for localhost/127.0.0.1 when the dir has none
    FILES = "files"  # externally managed (cert-manager or any other): wait for the files


async def serve_standalone(
    cert_dir: Path,
    *,
    host: str = "0.0.0.0",
    port: int = DEFAULT_PORT,
    cert_mode: CertMode = CertMode.SELF_SIGNED,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve until SIGTERM/SIGINT; ``announce`` receives the URL once requests are accepted."""
    if cert_mode is CertMode.SELF_SIGNED:
        ensure_self_signed_files(cert_dir)
    server = WebhookServer(
        certificates=DirectoryCertificates(cert_dir),
        validator=dynamo_operator.validation,
        host=host,
        port=port,
    )
    async with anyio.create_task_group() as task_group:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            await task_group.start(server.run)
            # Everything allocated so far lives as long as the process: exempting it from the
            # cyclic collector keeps full collections (latency spikes under load) short.
            gc.freeze()
            shown_host = "127.0.0.1" if host in ("0.0.0.0", "") else host
            announce(f"serving https://{shown_host}:{server.port} (CA: {cert_dir / 'ca.crt'})")
            async for _ in signals:
                break
        task_group.cancel_scope.cancel()
