"""The webhook server as a runnable: TLS listener, started only once a certificate is served.

The listener is the manager's `AppServer` (the runnable that also serves metrics and health
probes), given the live SSLContext the certificate source rotates and its connection limits (a
bounded number of connections, handshake and request-head deadlines, an idle timeout), so hostile
or broken clients cannot exhaust it. ``needs_leader_election = False``: every replica serves
admission requests.
"""

from __future__ import annotations

from typing import Protocol

import anyio
import anyio.abc

from manager.runtime.http_server import AppServer, ConnectionLimits
from manager.runtime.logging import get_logger
from manager.runtime.tls.server_context import ReloadableServerTLS
from webhooks.app import build_app
from webhooks.endpoints import DEFAULT_PORT
from webhooks.handlers import ResourceValidator
from webhooks.replica_writers import PLANNERS_ONLY, ReplicaWriters

_log = get_logger(__name__)

# The apiserver gives up on a webhook after timeoutSeconds (10 s); waiting longer for in-flight
# requests on shutdown helps nobody.
SHUTDOWN_GRACE_SECONDS = 5.0


class CertificateSource(Protocol):
    """Keeps ``tls`` serving a valid certificate; reports started once the first one is loaded."""

    async def run(
        self,
        tls: ReloadableServerTLS,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None: ...


class WebhookServer:
    needs_leader_election = False

    def __init__(
        self,
        *,
        certificates: CertificateSource,
        validator: ResourceValidator,
        host: str = "0.0.0.0",
        port: int = DEFAULT_PORT,
        limits: ConnectionLimits | None = None,
        replica_writers: ReplicaWriters = PLANNERS_ONLY,
    ) -> None:
        self._certificates = certificates
        self._validator = validator
        self._replica_writers = replica_writers
        self._host = host
        self._port = port
        self._limits = limits
        self._server: AppServer | None = None

    @property
    def ready(self) -> bool:
        """True while the listener is up with a valid certificate (for the readiness probe)."""
        return self._server is not None and self._server.listening

    @property
    def port(self) -> int:
        """The port actually bound (differs from the requested one when that was 0)."""
        if self._server is None or not self._server.listening:
            raise RuntimeError("the webhook server is not listening")
        return self._server.port

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        tls = ReloadableServerTLS()
        try:
            async with anyio.create_task_group() as task_group:
                # Blocks until a valid certificate is loaded: no request is accepted before that.
                await task_group.start(self._certificates.run, tls)
                self._server = AppServer(
                    build_app(self._validator, replica_writers=self._replica_writers),
                    host=self._host,
                    port=self._port,
                    ssl_context=tls.context,
                    shutdown_timeout=SHUTDOWN_GRACE_SECONDS,
                    limits=self._limits,
                )
                await task_group.start(self._server.run)
                _log.info("webhook server listening", host=self._host, port=self._server.port)
                task_status.started()
        finally:
            self._server = None
