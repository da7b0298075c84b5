"""Fixtures the runtime modules share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from e2e.runtime.test_client_apply import IDENTITY, CountingTransport
from manager.runtime.client.aiohttp_transport import AiohttpTransport


@pytest.fixture
async def counted(api: Any) -> AsyncIterator[CountingTransport]:
    """The real transport, every request it sends recorded."""
    transport = CountingTransport(AiohttpTransport(api, user_agent=IDENTITY.user_agent))
    yield transport
    await transport.aclose()
