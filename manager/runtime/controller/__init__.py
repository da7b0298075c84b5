"""Controllers: reconcile `Request`s from a rate-limited work queue with bounded concurrency."""

from manager.runtime.controller.controller import (
    Controller,
    EventSource,
)
from manager.runtime.controller.errors import CacheSyncTimeoutError, TerminalError, is_terminal
from manager.runtime.controller.reconcile import (
    Reconciler,
    ReconcilerFunc,
    Request,
    Result,
    taken_priority,
)

__all__ = [
    "CacheSyncTimeoutError",
    "Controller",
    "EventSource",
    "Reconciler",
    "ReconcilerFunc",
    "Request",
    "Result",
    "TerminalError",
    "is_terminal",
    "taken_priority",
]
