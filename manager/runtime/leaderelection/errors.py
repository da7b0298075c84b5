"""Errors of leader election: ``LeaseMarkerLostError``, the namespace marker Lease could not be
kept (taken by another holder, or not renewed in time).
"""

from __future__ import annotations

__all__ = ["LeaseMarkerLostError"]


class LeaseMarkerLostError(Exception):
    """The marker cannot be kept: not written at start, or renewals kept failing so it may
    expire while this process still acts. Either way the process must stop."""
