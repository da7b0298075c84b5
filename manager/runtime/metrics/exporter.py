"""The `/metrics` endpoint: the default Prometheus registry, over HTTP or secured.

Every module registers its series on prometheus_client's default registry, so this one endpoint
shows controller, workqueue, REST client, leader election and webhook metrics together. The
exposition format follows the scraper's Accept header (text or OpenMetrics).

Plain HTTP (controller-runtime's default, and the usual choice for local runs) answers
anyone who reaches the port. `SecureServing` is controller-runtime's `SecureServing: true` with
`FilterProvider: filters.WithAuthenticationAndAuthorization`: HTTPS with a certificate kept
current (`serving_certificate`) and every request authenticated and authorised through the API
server (`filters`).
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
from aiohttp import web
from anyio.abc import TaskStatus
from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.exposition import choose_encoder

from manager.runtime.http_server import AppServer
from manager.runtime.metrics.filters import authentication_and_authorization
from manager.runtime.metrics.reviews import DelegatedAuth
from manager.runtime.metrics.serving_certificate import ServingCertificate

__all__ = ["DEFAULT_METRICS_PORT", "DEFAULT_SECURE_METRICS_PORT", "SecureServing", "metrics_server"]

DEFAULT_METRICS_PORT = 8080
DEFAULT_SECURE_METRICS_PORT = 8443


@dataclass(frozen=True, slots=True)
class SecureServing:
    """HTTPS with `certificate`, and only requests `auth` authenticates and authorises."""

    auth: DelegatedAuth
    certificate: ServingCertificate


def metrics_server(
    *,
    host: str = "0.0.0.0",
    port: int = DEFAULT_METRICS_PORT,
    registry: CollectorRegistry = REGISTRY,
    secure: SecureServing | None = None,
) -> AppServer:
    """A runnable serving `registry` at `/metrics`, secured when `secure` is given."""

    async def scrape(request: web.Request) -> web.Response:
        encode, content_type = choose_encoder(request.headers.get("Accept", ""))
        return web.Response(body=encode(registry), headers={"Content-Type": content_type})

    if secure is None:
        app = web.Application()
        app.router.add_get("/metrics", scrape)
        return AppServer(app, host=host, port=port)
    app = web.Application(middlewares=[authentication_and_authorization(secure.auth)])
    app.router.add_get("/metrics", scrape)
    return _SecureAppServer(app, host=host, port=port, certificate=secure.certificate)


class _SecureAppServer(AppServer):
    """An `AppServer` over HTTPS that keeps its certificate current while it serves."""

    def __init__(
        self, app: web.Application, *, host: str, port: int, certificate: ServingCertificate
    ) -> None:
        super().__init__(app, host=host, port=port, ssl_context=certificate.context)
        self.certificate = certificate

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(self.certificate.run)
            await super().run(task_status=task_status)
