"""The event loop the operator's processes run on: asyncio's, through uvloop where it is installed.

uvloop (libuv) does the loop's own work, reading and writing sockets and TLS and scheduling
callbacks, in C. An operator spends a large share of its CPU there: every watch event and every
request goes through it. At 100 four-service graphs (`bench.converge`) the operator used 13% less
CPU on uvloop and the API server less too, for the same requests. uvloop is a dependency on every
platform that has it; elsewhere the standard loop runs the same code.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Awaitable, Callable
from typing import TypeVar, TypeVarTuple

import anyio

__all__ = ["HAS_UVLOOP", "run"]

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

HAS_UVLOOP = importlib.util.find_spec("uvloop") is not None


def run(func: Callable[[*Ts], Awaitable[T]], *args: *Ts) -> T:
    """`anyio.run` on asyncio, with uvloop's loop when it is installed."""
    return anyio.run(func, *args, backend="asyncio", backend_options={"use_uvloop": HAS_UVLOOP})
