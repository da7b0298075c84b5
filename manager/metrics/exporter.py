"""The `/metrics` endpoint (port 8080 by default): the default Prometheus registry.

Every module registers its series on prometheus_client's default registry, so this one endpoint
shows controller, workqueue, REST client, leader election and webhook metrics together. The
exposition format follows the scraper's Accept header (text or OpenMetrics).
"""

from __future__ import annotations

from aiohttp import web
from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.exposition import choose_encoder

from manager.http_server import AppServer

__all__ = ["DEFAULT_METRICS_PORT", "metrics_server"]

DEFAULT_METRICS_PORT = 8080


def metrics_server(
    *,
    host: str = "0.0.0.0",
    port: int = DEFAULT_METRICS_PORT,
    registry: CollectorRegistry = REGISTRY,
) -> AppServer:
    """A runnable serving `registry` at `/metrics`."""

    async def scrape(request: web.Request) -> web.Response:
        encode, content_type = choose_encoder(request.headers.get("Accept", ""))
        return web.Response(body=encode(registry), headers={"Content-Type": content_type})

    app = web.Application()
    app.router.add_get("/metrics", scrape)
    return AppServer(app, host=host, port=port)
