"""The last step of every reconcile: write the derived status once, then announce the change.

A reconciler derives its object's status and the Event a transition of it deserves (both pure,
in the application's library) and hands them to `StatusReport.report`, which:

1. holds back a status that differs only in progress while the object's `ProgressThrottle`
   (when the controller has one) says it is too soon, asking for a pass at `LOW_PRIORITY`
   once it is time (a report of progress is never urgent), or while more urgent work is
   waiting (`busy`: that pass after the longest of the throttle's cap, its wait and its
   budget's share: under load the budget spaces out these looks as it spaces out writes;
   events about the object bring it back sooner);
2. writes the status if it differs from the cached one (`Client.apply_status_if_changed`: one
   write at most, none at steady state);
3. records the Event, if there is one and the status was written (a transition derived again
   from a cache behind the write is not told twice).

The two refusals of the status write are answered the same way for every kind:

- `NotFound`: the object was deleted since the cache read it (its namespace too, maybe). There
  is nothing left to report on: the pass ends quietly, without its Event;
- `Invalid`: the API server refuses the status itself (the installed CRD's schema disagrees
  with what this controller derives: an older CRD, a value it rejects). Writing it again cannot
  help until the CRD or the object changes, so a Warning Event `StatusRejected` on the object
  says why and the pass ends with a `TerminalError` (logged and counted once by the controller,
  not retried); the transition's own Event is not recorded, its status never having been shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol

from manager.runtime.client import Client, Invalid, NotFound
from manager.runtime.controller import Result, TerminalError
from manager.runtime.events import EventRecorder
from manager.runtime.progress import ProgressThrottle
from manager.runtime.workqueue import LOW_PRIORITY

__all__ = ["STATUS_REJECTED", "ObjectEvent", "StatusReport"]

STATUS_REJECTED = "StatusRejected"
"""The reason of the Warning Event that says the API server refused an object's status."""


class ObjectEvent(Protocol):
    """An Event to record on the reported object (the application's own type fits)."""

    @property
    def type(self) -> Literal["Normal", "Warning"]: ...

    @property
    def reason(self) -> str: ...

    @property
    def message(self) -> str: ...


class StatusReport:
    """One controller's status step; `throttle` spaces out its progress-only writes, and holds
    them back while `busy()`."""

    def __init__(
        self,
        client: Client,
        recorder: EventRecorder,
        throttle: ProgressThrottle | None = None,
        busy: Callable[[], bool] = lambda: False,
    ) -> None:
        self._client = client
        self._recorder = recorder
        self._throttle = throttle
        self._busy = busy

    async def report(
        self,
        obj: Mapping[str, Any],
        status: Mapping[str, Any],
        event: ObjectEvent | None = None,
        *,
        now: datetime,
        progress_only: bool = False,
        requeue_after: float | None = None,
        first_status: timedelta | None = None,
    ) -> Result | None:
        """Write `status` on `obj` if it changed, then record `event`; what the pass returns.

        `progress_only`: the status differs from the cached one only in how far the object has
        got (see `ProgressThrottle`), so it may wait; `now` is the time the status was derived
        at. `requeue_after`: the pass wants another look that long after a reported status
        (not when the object is gone; a held-back status asks for its own, sooner, pass).
        `first_status`: how long a first status that is progress waits (the throttle's)."""
        uid = obj["metadata"]["uid"]
        throttle = self._throttle
        if throttle is not None and progress_only:
            wait = throttle.wait(uid, now, first_status=first_status)
            if self._busy():
                # Not sooner than the budget would let it write, nor than its share of the
                # budget once its own wait is over. At 2,000 graphs, while components waited:
                # a look every `cap`, 44 passes a graph; every `cap` once its wait was over,
                # 13.5 to 16; with the budget's share, 7.6.
                held = max(wait, throttle.cap.total_seconds(), throttle.budget().total_seconds())
                return Result(requeue_after=held, priority=LOW_PRIORITY)
            if wait:
                return Result(requeue_after=wait, priority=LOW_PRIORITY)
        try:
            written = await self._client.apply_status_if_changed(status, obj)
        except NotFound:
            return None
        except Invalid as error:
            message = f"the API server refused the status: {error.message}"
            self._recorder.event(obj, "Warning", STATUS_REJECTED, message)
            raise TerminalError(message) from error
        # Unwritten, the status was already this: no transition to tell (the Event, if any,
        # went with the write a pass derived it from, which the cache has not caught up with).
        if written and throttle is not None:
            throttle.written(uid, now, progress=progress_only)
        if written and event is not None:
            self._recorder.event(obj, event.type, event.reason, event.message)
        return Result(requeue_after=requeue_after) if requeue_after else None
