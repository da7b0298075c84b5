"""Shared by the unit (`tests/`) and end-to-end (`e2e/`) suites."""

import pytest


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """The operator runs on asyncio (kr8s and aiohttp need it), so async tests do too."""
    return "asyncio"
