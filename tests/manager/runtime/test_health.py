from collections.abc import AsyncIterator

import aiohttp
import anyio
import pytest

from manager.runtime.health import HealthProbes

pytestmark = pytest.mark.anyio


@pytest.fixture
def probes() -> HealthProbes:
    return HealthProbes()


@pytest.fixture
async def base_url(probes: HealthProbes) -> AsyncIterator[str]:
    server = probes.server(host="127.0.0.1", port=0)
    async with anyio.create_task_group() as tg:
        await tg.start(server.run)
        yield f"http://127.0.0.1:{server.port}"
        tg.cancel_scope.cancel()


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def test_liveness_answers_ok_with_no_checks_added(base_url: str) -> None:
    assert await get(f"{base_url}/healthz") == (200, "ok")


async def test_readiness_follows_its_checks(probes: HealthProbes, base_url: str) -> None:
    synced = False
    probes.add_readyz_check("caches-synced", lambda: synced)

    status, body = await get(f"{base_url}/readyz")
    assert status == 500
    assert "[-]caches-synced failed" in body

    synced = True
    assert await get(f"{base_url}/readyz") == (200, "ok")


async def test_a_check_that_raises_fails_the_probe(probes: HealthProbes, base_url: str) -> None:
    def broken() -> bool:
        raise RuntimeError("boom")

    probes.add_healthz_check("broken", broken)
    status, _ = await get(f"{base_url}/healthz")
    assert status == 500


async def test_verbose_single_check_and_exclude(probes: HealthProbes, base_url: str) -> None:
    probes.add_readyz_check("good", lambda: True)
    probes.add_readyz_check("bad", lambda: False)

    status, body = await get(f"{base_url}/readyz?verbose")
    assert status == 500
    assert body.splitlines() == ["[+]good ok", "[-]bad failed", "readyz check failed"]
    assert await get(f"{base_url}/readyz/good") == (200, "ok")
    assert await get(f"{base_url}/readyz?exclude=bad") == (200, "ok")
    assert (await get(f"{base_url}/readyz/missing"))[0] == 404
