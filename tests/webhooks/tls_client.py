"""A minimal HTTP/1.1-over-TLS client that exposes the peer certificate of its one connection.

The hot-reload tests need to know exactly which connection a request used, which pooled clients
hide; this one holds a single keep-alive connection and nothing else.
"""

from __future__ import annotations

import json
import ssl
from typing import Any

import anyio
from anyio.abc import ByteStream
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.tls import TLSAttribute


class TLSConnection:
    def __init__(self, stream: ByteStream, reader: BufferedByteReceiveStream) -> None:
        self._stream = stream
        self._reader = reader

    @classmethod
    async def open(cls, port: int, ca_pem: bytes) -> TLSConnection:
        context = ssl.create_default_context(cadata=ca_pem.decode())
        stream = await anyio.connect_tcp(
            "127.0.0.1", port, tls=True, ssl_context=context, tls_standard_compatible=False
        )
        return cls(stream, BufferedByteReceiveStream(stream))

    @property
    def peer_certificate(self) -> bytes:
        certificate = self._stream.extra(TLSAttribute.peer_certificate_binary)
        assert certificate is not None
        return certificate

    async def post(self, path: str, document: Any) -> tuple[int, bytes]:
        return await self.post_body(path, json.dumps(document).encode())

    async def post_body(self, path: str, body: bytes) -> tuple[int, bytes]:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        await self._stream.send(head.encode() + body)
        status_line, *header_lines = (
            (await self._reader.receive_until(b"\r\n\r\n", 65536)).decode().split("\r\n")
        )
        headers = dict(line.split(": ", 1) for line in header_lines)
        length = int(headers.get("Content-Length", headers.get("content-length", "0")))
        payload = await self._reader.receive_exactly(length) if length else b""
        return int(status_line.split()[1]), payload

    async def aclose(self) -> None:
        await self._stream.aclose()
