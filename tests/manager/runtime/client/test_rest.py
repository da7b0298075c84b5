from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

from manager.runtime.client import Gone, RestClient, WatchEvent
from manager.runtime.client.rest import _decode_events
from manager.runtime.kinds import POD
from tests.manager.runtime.fakes import WIDGET, ScriptedTransport, echo, v1_widget, v2_widget

pytestmark = pytest.mark.anyio


async def lines(*events: dict[str, object]) -> AsyncIterator[bytes]:
    for event in events:
        yield orjson.dumps(event)


async def test_watch_lines_decode_to_events_including_bookmarks() -> None:
    stream = lines(
        {"type": "ADDED", "object": {"metadata": {"name": "a", "resourceVersion": "1"}}},
        {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "5"}}},
    )

    events = [event async for event in _decode_events(stream, POD)]

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
    events = _decode_events(stream, POD)

    assert (await anext(events)).type == "MODIFIED"
    with pytest.raises(Gone):
        await anext(events)


async def test_a_wire_kind_is_read_and_listed_at_the_wire_version_and_handed_over_decoded() -> None:
    def answer(method: str, path: str, body: Any) -> dict[str, Any]:
        if path.endswith("/widgets"):
            item = {"metadata": {"name": "w"}, "spec": {"replicas": 2}}  # items have no apiVersion
            return {"metadata": {"resourceVersion": "7"}, "items": [item]}
        return v2_widget(replicas=3)

    transport = ScriptedTransport(answer)
    rest = RestClient(transport)  # type: ignore[arg-type]

    got = await rest.get(WIDGET, "ns", "w")
    page = await rest.list_page(WIDGET, "ns")

    assert [path for _, path, _ in transport.sent] == [
        "/apis/example.com/v2/namespaces/ns/widgets/w",
        "/apis/example.com/v2/namespaces/ns/widgets",
    ]
    assert (got["apiVersion"], got["spec"]) == ("example.com/v1", {"size": 3})
    assert [(i["apiVersion"], i["spec"]) for i in page.items] == [("example.com/v1", {"size": 2})]


async def test_writes_of_a_wire_kind_are_encoded_and_their_answers_decoded() -> None:
    transport = ScriptedTransport(echo)
    rest = RestClient(transport)  # type: ignore[arg-type]

    applied = await rest.apply(WIDGET, v1_widget(size=4), field_manager="m")
    created = await rest.create(WIDGET, v1_widget(size=5), field_manager="m")

    assert [body["spec"] for _, _, body in transport.sent] == [{"replicas": 4}, {"replicas": 5}]
    assert {b["apiVersion"] for _, _, b in transport.sent} == {"example.com/v2"}
    assert (applied["spec"], created["spec"]) == ({"size": 4}, {"size": 5})


async def test_an_object_already_at_the_wire_version_goes_as_it_is() -> None:
    transport = ScriptedTransport(echo)
    await RestClient(transport).apply(WIDGET, v2_widget(replicas=1), field_manager="m")  # type: ignore[arg-type]

    assert transport.sent[0][2] == v2_widget(replicas=1)


async def test_merge_patches_go_to_the_kinds_own_version_unless_written_at_the_wire_one() -> None:
    transport = ScriptedTransport(lambda *_: v1_widget(size=1))
    rest = RestClient(transport)  # type: ignore[arg-type]

    await rest.merge_patch(WIDGET, "ns", "w", {"spec": {"size": 1}}, field_manager="m")
    await rest.merge_patch(
        WIDGET,
        "ns",
        "w",
        {"status": {}},
        field_manager="m",
        subresource="status",
        at_wire_version=True,
    )

    assert [path for _, path, _ in transport.sent] == [
        "/apis/example.com/v1/namespaces/ns/widgets/w",
        "/apis/example.com/v2/namespaces/ns/widgets/w/status",
    ]


async def test_watch_events_of_a_wire_kind_are_decoded_bookmarks_left_alone() -> None:
    stream = lines(
        {"type": "ADDED", "object": v2_widget(replicas=2)},
        {"type": "DELETED", "object": v2_widget(replicas=0)},
        {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "5"}}},
    )

    events = [event async for event in _decode_events(stream, WIDGET)]

    assert [e.object.get("spec") for e in events] == [{"size": 2}, {"size": 0}, None]
    assert events[0].object["apiVersion"] == "example.com/v1"
