"""Errors of the work queue: ``QueueShutDown``, raised by ``get`` once the queue is shut down
and drained (client-go's ``shutdown`` return value).
"""

from __future__ import annotations

__all__ = ["QueueShutDown"]


class QueueShutDown(Exception):
    """Raised by `get` once the queue is shut down and holds no more items."""
