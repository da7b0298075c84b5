"""The webhook server as a runnable: TLS listener, started only once a certificate is served.

It satisfies the manager's runnable contract structurally (``run(task_status=...)``, runs until
cancelled, ``needs_leader_election = False``: every replica serves admission requests) without
importing the manager.
"""

from __future__ import annotations

from typing import Protocol

import anyio
import anyio.abc
import structlog
from aiohttp import web

from webhooks.app import build_app
from webhooks.certificates.tls import ReloadableServerTLS
from webhooks.endpoints import DEFAULT_PORT
from webhooks.handlers import ResourceValidator

_log = structlog.get_logger("webhooks")

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
    ) -> None:
        self._certificates = certificates
        self._validator = validator
        self._host = host
        self._port = port
        self._bound_port: int | None = None

    @property
    def ready(self) -> bool:
        """True while the listener is up with a valid certificate (for the readiness probe)."""
        return self._bound_port is not None

    @property
    def port(self) -> int:
        """The port actually bound (differs from the requested one when that was 0)."""
        if self._bound_port is None:
            raise RuntimeError("the webhook server is not listening")
        return self._bound_port

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        tls = ReloadableServerTLS()
        runner = web.AppRunner(
            build_app(self._validator),
            access_log=None,
            handle_signals=False,
            shutdown_timeout=SHUTDOWN_GRACE_SECONDS,
        )
        try:
            async with anyio.create_task_group() as task_group:
                # Blocks until a valid certificate is loaded: no request is accepted before that.
                await task_group.start(self._certificates.run, tls)
                await runner.setup()
                site = web.TCPSite(runner, self._host, self._port, ssl_context=tls.context)
                await site.start()
                self._bound_port = _bound_port(runner, self._port)
                _log.info("webhook server listening", host=self._host, port=self._bound_port)
                task_status.started()
        finally:
            self._bound_port = None
            with anyio.CancelScope(shield=True):
                await runner.cleanup()
            tls.close()


def _bound_port(runner: web.AppRunner, requested: int) -> int:
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return requested
