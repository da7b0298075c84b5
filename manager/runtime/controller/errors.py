"""Errors of the controller package: those a reconciler raises to steer the controller, and
the one the controller raises itself.

    Exception
    ├── TerminalError          the object cannot be reconciled as it is (an invalid spec): record
    │                          it, do not retry; a change to the object will enqueue it again.
    └── CacheSyncTimeoutError  the controller's caches did not sync in time; it does not start.

Every other exception raised by a reconciler is retried with the controller's rate limiter.
"""

from __future__ import annotations

__all__ = ["CacheSyncTimeoutError", "TerminalError", "is_terminal"]


class TerminalError(Exception):
    """A failure retrying cannot fix; `raise TerminalError(...) from cause` keeps the cause."""


def is_terminal(error: BaseException) -> bool:
    """True for a `TerminalError`, or a group of errors made only of them (from a task group)."""
    if isinstance(error, TerminalError):
        return True
    if isinstance(error, BaseExceptionGroup):
        rest = error.split(TerminalError)[1]
        return rest is None
    return False


class CacheSyncTimeoutError(Exception):
    """The controller's sources did not finish their first list within `cache_sync_timeout`."""
