"""Shared fixtures: an in-process aiohttp client over the webhook app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from tests.webhooks.reviews import ScriptedValidator
from webhooks.app import build_app


@pytest.fixture
def validator() -> ScriptedValidator:
    return ScriptedValidator()


@pytest.fixture
async def client(validator: ScriptedValidator) -> AsyncIterator[TestClient[Any, Any]]:
    async with TestClient(TestServer(build_app(validator))) as test_client:
        yield test_client
