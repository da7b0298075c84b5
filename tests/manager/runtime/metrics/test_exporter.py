from collections.abc import AsyncIterator

import aiohttp
import anyio
import pytest
from prometheus_client import CollectorRegistry, Counter

from manager.runtime.controller import Controller, Request
from manager.runtime.metrics.exporter import metrics_server

pytestmark = pytest.mark.anyio


async def scrape(url: str, accept: str = "") -> tuple[str, str]:
    headers = {"Accept": accept} if accept else {}
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as response:
        assert response.status == 200
        return response.headers["Content-Type"], await response.text()


@pytest.fixture
async def default_registry_url() -> AsyncIterator[str]:
    server = metrics_server(host="127.0.0.1", port=0)
    async with anyio.create_task_group() as tg:
        await tg.start(server.run)
        yield f"http://127.0.0.1:{server.port}/metrics"
        tg.cancel_scope.cancel()


async def test_a_controllers_series_appear_with_controller_runtime_names(
    default_registry_url: str,
) -> None:
    async def reconcile(request: Request) -> None:
        return None

    Controller("exporter-test", reconcile, max_concurrent_reconciles=3)
    _, body = await scrape(default_registry_url)

    for line in [
        'controller_runtime_reconcile_total{controller="exporter-test",result="success"} 0.0',
        'controller_runtime_reconcile_total{controller="exporter-test",result="requeue_after"} 0.0',
        'controller_runtime_max_concurrent_reconciles{controller="exporter-test"} 3.0',
        'workqueue_depth{controller="exporter-test",name="exporter-test",priority="0"} 0.0',
        "workqueue_longest_running_processor_seconds"
        '{controller="exporter-test",name="exporter-test"} 0.0',
    ]:
        assert line in body.splitlines()


async def test_the_format_follows_the_accept_header() -> None:
    registry = CollectorRegistry()
    Counter("things", "Things counted", registry=registry).inc()
    server = metrics_server(host="127.0.0.1", port=0, registry=registry)
    async with anyio.create_task_group() as tg:
        await tg.start(server.run)
        url = f"http://127.0.0.1:{server.port}/metrics"
        text_type, text = await scrape(url)
        open_type, open_metrics = await scrape(url, "application/openmetrics-text; version=1.0.0")
        tg.cancel_scope.cancel()

    assert text_type.startswith("text/plain")
    assert "things_total 1.0" in text
    assert open_type.startswith("application/openmetrics-text")
    assert open_metrics.rstrip().endswith("# EOF")
