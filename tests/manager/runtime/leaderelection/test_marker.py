"""The namespace marker: live from its first write, renewed, deleted on a clean stop, and a
process that cannot write it does not start."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson
import pytest

from manager.runtime.client.rest import RestClient
from manager.runtime.client.transport import HttpResponse
from manager.runtime.clock import FakeClock
from manager.runtime.identity import Identity
from manager.runtime.leaderelection.errors import LeaseMarkerLostError
from manager.runtime.leaderelection.marker import (
    LeaseMarker,
)

pytestmark = pytest.mark.anyio

IDENTITY = Identity.for_product("test-operator", domain="example.com", version="0")
PATH = "/apis/coordination.k8s.io/v1/namespaces/team-a/leases/marker"


@dataclass
class FakeApiServer:
    """Answers every request with `answers[method]` (200 with the body sent by default)."""

    answers: dict[str, HttpResponse] = field(default_factory=dict)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    server: str = "https://apiserver.invalid"

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
        request_timeout: float = 30.0,
    ) -> HttpResponse:
        sent = orjson.loads(body) if body else None
        self.calls.append((method, path, sent))
        return self.answers.get(method) or HttpResponse(200, body or b"{}", {})


def marker(server: FakeApiServer, clock: FakeClock | None = None) -> LeaseMarker:
    return LeaseMarker(
        RestClient(server),
        IDENTITY,
        name="marker",
        namespace="team-a",
        holder_identity="namespace-restricted-operator-1.0",
        duration=30,
        renew_interval=10,
        clock=clock,
    )


def forbidden() -> HttpResponse:
    status = {
        "kind": "Status",
        "status": "Failure",
        "reason": "Forbidden",
        "code": 403,
        "message": 'leases.coordination.k8s.io "marker" is forbidden: User "x" cannot create',
    }
    return HttpResponse(403, orjson.dumps(status), {})


async def test_the_first_write_makes_the_marker_live_and_a_clean_stop_deletes_it() -> None:
    server, clock = FakeApiServer(), FakeClock()

    async with anyio.create_task_group() as group:
        await group.start(marker(server, clock).run)
        [(method, path, lease)] = server.calls
        assert (method, path) == ("PATCH", PATH)
        assert lease["spec"]["holderIdentity"] == "namespace-restricted-operator-1.0"
        assert lease["spec"]["leaseDurationSeconds"] == 30
        assert lease["spec"]["renewTime"], "live from its first write"
        await clock.settle(10)
        assert [call[0] for call in server.calls] == ["PATCH", "PATCH"]
        group.cancel_scope.cancel()

    assert server.calls[-1][:2] == ("DELETE", PATH)


async def test_a_marker_that_cannot_be_written_stops_the_start_with_one_clear_error() -> None:
    """E.g. a Role without `create` on leases: the manager gets a `LeaseMarkerLostError` (which
    `dynamo-operator run` reports in one line, exit 1) and the process never starts."""
    server = FakeApiServer(answers={"PATCH": forbidden()})
    status = TaskStatus()

    with pytest.raises(LeaseMarkerLostError, match=r"team-a/marker not written at start: .*403"):
        await marker(server).run(task_status=status)
    assert not status.started_called
    assert [call[0] for call in server.calls] == ["PATCH"], "nothing to delete: never written"


class TaskStatus:
    started_called = False

    def started(self, value: object = None) -> None:
        self.started_called = True


class HangingApiServer(FakeApiServer):
    """Writes the marker at start, then never answers a renewal (an API server gone silent)."""

    async def request(self, method: str, path: str, **kwargs: Any) -> HttpResponse:
        if self.calls and method == "PATCH":
            self.calls.append((method, path, None))
            await anyio.sleep_forever()
        return await super().request(method, path, **kwargs)


async def test_renewals_that_never_answer_stop_the_process_before_the_marker_expires() -> None:
    """A renewal that hangs counts as failed once the marker could no longer be renewed in time:
    the process stops instead of acting in a namespace another operator may take over."""
    server = HangingApiServer()
    hanging = LeaseMarker(
        RestClient(server),
        IDENTITY,
        name="marker",
        namespace="team-a",
        holder_identity="namespace-restricted-operator-1.0",
        duration=0.6,
        renew_interval=0.2,
    )

    with (
        anyio.fail_after(30),  # without the guard it would wait forever
        pytest.raises(LeaseMarkerLostError, match=r"team-a/marker not renewed for 0.4s"),
    ):
        await hanging.run()
    assert [call[0] for call in server.calls] == ["PATCH", "PATCH", "DELETE"]
