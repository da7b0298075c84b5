"""Errors of the runtime's top-level modules (its subpackages each have their own ``errors.py``).

``LeadershipLostError``: the manager lost the leader election; the process exits and restarts
as a candidate.
"""

from __future__ import annotations

__all__ = ["LeadershipLostError"]


class LeadershipLostError(Exception):
    """This replica lost the leader lease; its controllers were stopped."""
