"""Fakes of the runtime's interfaces that tests of the runtime and of the reconcilers share."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from manager.runtime.client.transport import HttpResponse
from manager.runtime.kinds import ResourceKind, WireFormat


class FakeRecorder:
    """An event recorder that keeps each Event as (type, reason, message)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []

    def event(self, obj: Mapping[str, Any], event_type: str, reason: str, message: str) -> None:
        self.events.append((event_type, reason, message))

    def reasons(self) -> list[str]:
        return [reason for _, reason, _ in self.events]


def _renamed(obj: Mapping[str, Any], old: str, new: str, api_version: str) -> dict[str, Any]:
    renamed = {**obj, "apiVersion": api_version}
    for part in ("spec", "status"):
        if part in obj:
            renamed[part] = {new if key == old else key: value for key, value in obj[part].items()}
    return renamed


WIRE = WireFormat(
    "example.com/v2",
    lambda obj: _renamed(obj, "size", "replicas", "example.com/v2"),
    lambda obj: _renamed(obj, "replicas", "size", "example.com/v1"),
)
"""Reached at example.com/v2, where v1's `spec.size` and `status.size` are called `replicas`."""
WIDGET = ResourceKind("example.com/v1", "Widget", "widgets", True, wire=WIRE)


@dataclass
class ScriptedTransport:
    """Records each request and answers 200 with `answer(method, path, body)`."""

    answer: Callable[[str, str, Any], dict[str, Any]]
    sent: list[tuple[str, str, Any]] = field(default_factory=list)
    server: str = "https://apiserver.invalid"

    async def request(
        self, method: str, path: str, *, body: bytes | None = None, **_: Any
    ) -> HttpResponse:
        decoded = orjson.loads(body) if body else None
        self.sent.append((method, path, decoded))
        return HttpResponse(200, orjson.dumps(self.answer(method, path, decoded)), {})


def echo(method: str, path: str, body: Any) -> dict[str, Any]:
    return dict(body) if isinstance(body, dict) else {}


def v1_widget(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": spec,
    }


def v2_widget(**spec: Any) -> dict[str, Any]:
    return {**v1_widget(**spec), "apiVersion": "example.com/v2"}
