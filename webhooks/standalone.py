"""Serving the webhooks without the operator: certificates from a directory.

For local development and tests: point a URL-based webhook configuration at the printed URL and
trust the directory's ``ca.crt``. With ``crd_conversion`` (``--configure-crd-conversion``) it also
points the multi-version CRDs' conversion webhook at its own URL and CA, through the kubeconfig,
and keeps them so: the only Kubernetes connection it ever opens.

Stops cleanly on SIGTERM or SIGINT in every state, including while it waits for a usable
certificate (missing, corrupt or expired files in ``files`` mode): the signals are watched from the
start, beside the server, not after it has started.
"""

from __future__ import annotations

import gc
import signal
from collections.abc import Callable, Collection
from enum import StrEnum
from pathlib import Path

import anyio

import dynamo_operator.validation
from manager.runtime.tls.directory import DirectoryCertificates
from webhooks.certificates.self_signed import SelfSignedCertificates
from webhooks.endpoints import DEFAULT_PORT
from webhooks.replica_writers import PLANNERS_ONLY, ReplicaWriters
from webhooks.server import WebhookServer


class CertMode(StrEnum):
    SELF_SIGNED = "self-signed"  # keep a localhost pair in the directory (generated, renewed)
    FILES = "files"  # externally managed (cert-manager or any other): wait for the files


async def serve_standalone(
    cert_dir: Path,
    *,
    host: str = "0.0.0.0",
    port: int = DEFAULT_PORT,
    cert_mode: CertMode = CertMode.SELF_SIGNED,
    announce: Callable[[str], None] = print,
    crd_conversion: Collection[str] = (),
    replica_writers: ReplicaWriters = PLANNERS_ONLY,
) -> None:
    """Serve until SIGTERM/SIGINT; ``announce`` receives the URL once requests are accepted."""
    certificates = (
        SelfSignedCertificates(cert_dir)
        if cert_mode is CertMode.SELF_SIGNED
        else DirectoryCertificates(cert_dir)
    )
    server = WebhookServer(
        certificates=certificates,
        validator=dynamo_operator.validation,
        host=host,
        port=port,
        replica_writers=replica_writers,
    )

    async def serve() -> None:
        async with anyio.create_task_group() as serving:
            await serving.start(server.run)  # returns once a certificate is served
            # Everything allocated so far lives as long as the process: exempting it from the
            # cyclic collector keeps full collections (latency spikes under load) short.
            gc.freeze()
            shown_host = "127.0.0.1" if host in ("0.0.0.0", "") else host
            url = f"https://{shown_host}:{server.port}"
            if crd_conversion:
                serving.start_soon(_keep_conversion, url, cert_dir / "ca.crt", crd_conversion)
            announce(f"serving {url} (CA: {cert_dir / 'ca.crt'})")

    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(serve)
            async for _ in signals:
                break
            task_group.cancel_scope.cancel()


async def _keep_conversion(url: str, ca_file: Path, crd_names: Collection[str]) -> None:
    # Imported here: the server alone needs no Kubernetes client.
    import kr8s.asyncio

    from manager.runtime.client.rest import RestClient
    from webhooks.crd_conversion import ConversionTarget, CrdConversionKeeper

    rest = RestClient.for_api(await kr8s.asyncio.api())
    try:
        target = ConversionTarget.url(url, await anyio.Path(ca_file).read_bytes())
        await CrdConversionKeeper(rest, target, crd_names).run()
    finally:
        await rest.transport.aclose()
