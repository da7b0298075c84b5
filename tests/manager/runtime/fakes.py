"""Fakes of the runtime's interfaces that tests of the runtime and of the reconcilers share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class FakeRecorder:
    """An event recorder that keeps each Event as (type, reason, message)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []

    def event(self, obj: Mapping[str, Any], event_type: str, reason: str, message: str) -> None:
        self.events.append((event_type, reason, message))

    def reasons(self) -> list[str]:
        return [reason for _, reason, _ in self.events]
