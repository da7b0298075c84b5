from collections.abc import AsyncIterator

import orjson
import pytest

from manager.runtime.client import Gone, WatchEvent
from manager.runtime.client.rest import _decode_events

pytestmark = pytest.mark.anyio


async def lines(*events: dict[str, object]) -> AsyncIterator[bytes]:
    for event in events:
        yield orjson.dumps(event)


async def test_watch_lines_decode_to_events_including_bookmarks() -> None:
    stream = lines(
        {"type": "ADDED", "object": {"metadata": {"name": "a", "resourceVersion": "1"}}},
        {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "5"}}},
    )

    events = [event async for event in _decode_events(stream)]

    assert [e.type for e in events] == ["ADDED", "BOOKMARK"]
    assert events[1] == WatchEvent("BOOKMARK", {"metadata": {"resourceVersion": "5"}})


async def test_an_expired_error_event_in_the_stream_raises_gone() -> None:
    stream = lines(
        {"type": "MODIFIED", "object": {"metadata": {"name": "a", "resourceVersion": "2"}}},
        {
            "type": "ERROR",
            "object": {"kind": "Status", "code": 410, "reason": "Expired", "message": "too old"},
        },
    )
    events = _decode_events(stream)

    assert (await anext(events)).type == "MODIFIED"
    with pytest.raises(Gone):
        await anext(events)
