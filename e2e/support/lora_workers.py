"""Fake Dynamo workers for the DynamoModel end-to-end tests, each on its own test host.

The API server refuses loopback addresses in EndpointSlices, so a worker cannot listen on
127.0.0.1: each one gets a network namespace of its own (``ip netns add``), joined to this one by
a veth pair with a /30 of a private /24 chosen at random among the unused ones. The operator,
running here, reaches the worker at its address like any pod IP; traffic never leaves the
machine. Creating namespaces and links needs root (CAP_NET_ADMIN).

A worker is a small HTTP/1.1 server on port 9090, its listening socket opened inside its
namespace (``setns`` on this thread for the duration of the ``bind``), served by an asyncio loop
on a background thread. It records every request (method, path, JSON body) and answers the way
it is told, per method: ``ok`` (200), ``fail`` (500), ``hang`` (never answers), ``garbage`` (bytes
that are not HTTP, then closes) or ``close`` (closes without a word). ``WorkerNetwork`` removes
every link and namespace it created when it closes, also after a failed test, and at exit.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import ipaddress
import json
import os
import random
import secrets
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Behaviour = Literal["ok", "fail", "hang", "garbage", "close"]
PORT = 9090
_CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL("libc.so.6", use_errno=True)


NETNS_DIR = Path("/run/netns")
"""Where `ip netns` keeps named namespaces (it creates the directory and mounts it on itself)."""


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    body: Any


@dataclass
class Worker:
    """One fake worker; ``calls`` is what it received, in order."""

    name: str
    ip: str
    behaviour: dict[str, Behaviour] = field(default_factory=lambda: {"POST": "ok", "DELETE": "ok"})
    calls: list[Call] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"http://{self.ip}:{PORT}"

    def behave(self, *, load: Behaviour | None = None, unload: Behaviour | None = None) -> None:
        if load is not None:
            self.behaviour["POST"] = load
        if unload is not None:
            self.behaviour["DELETE"] = unload

    def received(self, method: str) -> list[Call]:
        return [call for call in list(self.calls) if call.method == method]


class WorkerNetwork:
    """Test hosts with one fake worker each; see the module doc."""

    def __init__(self) -> None:
        self._tag = secrets.token_hex(3)
        self._subnet = _free_subnet()
        self._namespaces: list[str] = []
        self._netns_dir_existed = NETNS_DIR.exists()
        self._links: list[str] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._servers: list[asyncio.Server] = []
        self._hanging = asyncio.Event()  # never set: hung requests wait until the loop stops
        atexit.register(self.close)

    def add(self, name: str) -> Worker:
        """A new host running a worker that answers ``ok``."""
        index = len(self._namespaces)
        if index >= 60:
            raise RuntimeError("one /24 holds 60 test hosts")
        netns, host_link, worker_link = (
            f"dmw-{self._tag}-{index}",
            f"dmh{self._tag}{index}",
            f"dmw{self._tag}{index}",
        )
        host_ip, worker_ip = (str(self._subnet[4 * index + offset]) for offset in (1, 2))
        _ip("netns", "add", netns)
        self._namespaces.append(netns)
        _ip("link", "add", host_link, "type", "veth", "peer", "name", worker_link)
        self._links.append(host_link)
        _ip("link", "set", worker_link, "netns", netns)
        _ip("addr", "add", f"{host_ip}/30", "dev", host_link)
        _ip("link", "set", host_link, "up")
        _ip("-n", netns, "addr", "add", f"{worker_ip}/30", "dev", worker_link)
        _ip("-n", netns, "link", "set", worker_link, "up")
        _ip("-n", netns, "link", "set", "lo", "up")
        worker = Worker(name, worker_ip)
        listener = _listen_in(netns, worker_ip, PORT)
        self._servers.append(self._run(self._serve(worker, listener)))
        return worker

    def close(self) -> None:
        atexit.unregister(self.close)
        if self._loop.is_running():
            with contextlib.suppress(Exception):
                self._run(self._shutdown())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        if not self._loop.is_running():
            self._loop.close()
        for link in self._links:
            subprocess.run(["ip", "link", "del", link], check=False, capture_output=True)
        for netns in self._namespaces:
            subprocess.run(["ip", "netns", "del", netns], check=False, capture_output=True)
        self._links.clear()
        self._namespaces.clear()
        _remove_netns_dir_if_made(self._netns_dir_existed)

    async def _shutdown(self) -> None:
        """Stop listening and end every connection, hung ones included."""
        for server in self._servers:
            server.close()
        handlers = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    async def _serve(self, worker: Worker, listener: socket.socket) -> asyncio.Server:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await self._answer(worker, reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError):
                pass
            finally:
                writer.close()

        return await asyncio.start_server(handle, sock=listener)

    async def _answer(
        self, worker: Worker, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        request_line, *header_lines = head.split("\r\n")
        method, path, _ = request_line.split(" ", 2)
        headers = {
            key.strip().lower(): value.strip()
            for key, _, value in (line.partition(":") for line in header_lines if line)
        }
        raw = await reader.readexactly(int(headers.get("content-length") or 0))
        worker.calls.append(Call(method, path, json.loads(raw) if raw else None))
        behaviour = worker.behaviour.get(method, "ok")
        if behaviour == "hang":
            await self._hanging.wait()
        elif behaviour == "garbage":
            writer.write(b"\x00\x01 this is not HTTP \xff\r\n\r\n")
            await writer.drain()
        elif behaviour in ("ok", "fail"):
            status, body = (
                ("200 OK", {"status": "success"})
                if behaviour == "ok"
                else ("500 Internal Server Error", {"status": "error", "message": "boom"})
            )
            payload = json.dumps(body).encode()
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )
            await writer.drain()


@contextlib.contextmanager
def worker_network() -> Iterator[WorkerNetwork]:
    network = WorkerNetwork()
    try:
        yield network
    finally:
        network.close()


def _ip(*arguments: str) -> None:
    result = subprocess.run(["ip", *arguments], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(
            f"ip {' '.join(arguments)} failed ({result.stderr.strip()}): the DynamoModel tests "
            "create network namespaces and need root (CAP_NET_ADMIN)"
        )


def _free_subnet() -> ipaddress.IPv4Network:
    """A random 10.x.y.0/24 that no route of this machine overlaps."""
    routes = subprocess.run(["ip", "-4", "route"], capture_output=True, text=True).stdout
    used = [
        ipaddress.ip_network(word, strict=False)
        for line in routes.splitlines()
        for word in line.split()[:1]
        if word[0].isdigit()
    ]
    for _ in range(100):
        candidate = ipaddress.IPv4Network(
            f"10.{random.randint(64, 127)}.{random.randint(0, 255)}.0/24"
        )
        if not any(candidate.overlaps(network) for network in used):
            return candidate
    raise RuntimeError("no free 10.x.y.0/24 for the test hosts")


def _remove_netns_dir_if_made(existed_before: bool) -> None:
    """Give back what the first `ip netns add` made: /run/netns, bind-mounted onto itself. Only
    when it was not there before and no namespace is left in it (another user may have come)."""
    if existed_before or not NETNS_DIR.is_dir() or any(NETNS_DIR.iterdir()):
        return
    subprocess.run(["umount", str(NETNS_DIR)], check=False, capture_output=True)
    with contextlib.suppress(OSError):
        NETNS_DIR.rmdir()


def _listen_in(netns: str, ip: str, port: int) -> socket.socket:
    """A socket listening on ip:port inside the network namespace ``netns``."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(NETNS_DIR / netns, os.O_RDONLY)
    try:
        _setns(target)
        try:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((ip, port))
            listener.listen(64)
            listener.setblocking(False)
        finally:
            _setns(own)
    finally:
        os.close(own)
        os.close(target)
    return listener


def _setns(fd: int) -> None:
    if _libc.setns(fd, _CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"setns: {os.strerror(error)}")
