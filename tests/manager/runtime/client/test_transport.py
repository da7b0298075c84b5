from collections.abc import AsyncIterator

import pytest

from manager.runtime.client.transport import split_lines

pytestmark = pytest.mark.anyio


async def chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def test_lines_are_reassembled_across_chunk_boundaries() -> None:
    stream = chunks(b'{"a":', b'1}\n{"b"', b":2}\n\n", b'{"c":3}')

    assert [line async for line in split_lines(stream)] == [b'{"a":1}', b'{"b":2}', b'{"c":3}']


async def test_a_line_longer_than_any_buffer_arrives_whole() -> None:
    big = b"x" * 300_000
    stream = chunks(*(big[i : i + 1000] for i in range(0, len(big), 1000)), b"\n")

    assert [len(line) async for line in split_lines(stream)] == [300_000]
