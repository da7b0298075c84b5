"""The queue priorities every controller shares (the queue and its metrics both name them)."""

from __future__ import annotations

__all__ = ["DEFAULT_PRIORITY", "LOW_PRIORITY"]

DEFAULT_PRIORITY = 0
LOW_PRIORITY = -100
"""controller-runtime's value: work a controller does after everything at the default."""
