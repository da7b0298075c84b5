"""How often the graph and component controllers report a pending object's progress
(`manager.runtime.progress`): a first status saying the object is on its way after
`PROGRESS_FIRST`, then its progress at most every `PROGRESS_CAP`; a status that changes more
than progress (ready, failed, a new reason or generation) at once.

Under load (hundreds of graphs converging together) each controller's progress writes share
`PROGRESS_RATE` a second on average: each object in progress then reports at most every
(objects in progress / `PROGRESS_RATE`) seconds, up to `PROGRESS_LONGEST`. Measured with
`bench/converge.py` at N = 500 graphs (2,000 components), a graph converging in about 4 minutes
then writes one status (successful) and each component one (available), where every 30 s of
progress cost one more write each; a lone graph still shows its progress every 30 s.
"""

from __future__ import annotations

from datetime import timedelta

from manager.runtime.progress import ProgressThrottle

PROGRESS_FIRST, PROGRESS_CAP = timedelta(seconds=5), timedelta(seconds=30)
PROGRESS_RATE = 2.0
PROGRESS_LONGEST = timedelta(minutes=5)


def progress_throttle() -> ProgressThrottle:
    """A controller's own throttle (its objects share its budget)."""
    return ProgressThrottle(
        PROGRESS_FIRST, PROGRESS_CAP, rate=PROGRESS_RATE, longest=PROGRESS_LONGEST
    )
