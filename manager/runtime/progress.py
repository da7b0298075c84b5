"""Progress-only status writes spaced out per object.

While many objects converge, each of their children moving a replica forward changes a
progress message, and writing every one of those would be most of a controller's writes. A
reconciler that finds a status differing only in progress asks `wait` how long until the
object's last write is old enough: 0 means write now; otherwise it requeues after that long,
so the latest progress is still written (level-based: the later pass derives it again).

After a status that changed more than progress (a new generation, a new reason, ready, failed:
always written at once), progress waits `first`, so a change shows how it is going soon; after
a progress write, it waits `cap`. A pending object's progress is refreshed at most every `cap`,
and one that gets there within `cap` of its last write costs no write in between.

An object's first status counts as progress too when it only says the object is on its way:
written at once, it would often be followed within seconds by the one saying it got there, so
it waits until this process has known the object for `first` (or the `first_status` a caller
gives, at most `cap`: an object only another controller reads, such as a graph's component,
can wait longer; what the object shows until then is what it showed before its controller saw
it: no status). That is measured from the
first time it was asked about, on this process's clock; after a restart an object without a
status waits `first` again, never longer.

Under load, progress shares a budget (`rate`, writes a second): with many objects in progress
at once (hundreds of graphs converging together), every interval is at least as many seconds
as there are objects in progress divided by `rate` (at most `longest`), so the controller's
progress writes stay near `rate` a second on average however many objects there are, and most
objects that get there within that time write one status, the one saying so. A few objects
keep the intervals above; whatever the load, a pending object's progress is at most `longest`
old.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime, timedelta
from typing import NamedTuple

__all__ = ["ProgressThrottle"]


class _Written(NamedTuple):
    at: datetime
    progress: bool
    """Only progress changed (or a first status on its way): the next progress waits `cap`,
    else `first`."""


class ProgressThrottle:
    def __init__(
        self,
        first: timedelta,
        cap: timedelta,
        *,
        rate: float | None = None,
        longest: timedelta | None = None,
    ) -> None:
        self.first = first
        self.cap = cap
        self.rate = rate
        """Progress writes a second the objects in progress share (None: no budget)."""
        self.longest = max(cap, longest or cap)
        """The longest interval the budget may stretch to."""
        self._written: OrderedDict[str, _Written] = OrderedDict()
        """Each object's last status write (by uid, oldest first). Entries older than
        `longest` are dropped: no interval is longer."""
        self._first_asked: OrderedDict[str, datetime] = OrderedDict()
        """When a first status was first held back, per object not written since (oldest
        first); entries older than twice `longest` are dropped (the object was deleted
        meanwhile, or its first status is overdue anyway)."""

    def wait(self, uid: str, now: datetime, *, first_status: timedelta | None = None) -> float:
        """Seconds until progress of object `uid` may be written (0: now); `first_status`:
        how long its first status waits, instead of `first` (at most `cap`)."""
        last = self._written.get(uid)
        if last is None:
            _drop_older(self._first_asked, now - 2 * self.longest)
            interval = self.first if first_status is None else min(first_status, self.cap)
            since = self._first_asked.setdefault(uid, now)
        else:
            interval, since = self.cap if last.progress else self.first, last.at
        interval = max(interval, self.budget())
        return max(0.0, (since + interval - now).total_seconds())

    def written(self, uid: str, now: datetime, *, progress: bool) -> None:
        """Object `uid`'s status was written at `now`; `progress`: only its progress changed
        (or it is a first status saying the object is on its way), so the next progress waits
        `cap`; otherwise `first` (either at least the budget's interval)."""
        self._first_asked.pop(uid, None)
        self._written.pop(uid, None)
        self._written[uid] = _Written(now, progress)
        while next(iter(self._written.values())).at + self.longest <= now:
            self._written.popitem(last=False)

    def budget(self) -> timedelta:
        """Each object's share of the budget: objects in progress / `rate`, up to `longest`
        (no time without a `rate`)."""
        if self.rate is None:
            return timedelta(0)
        return min(self.longest, timedelta(seconds=len(self) / self.rate))

    def __len__(self) -> int:
        return len(self._written) + len(self._first_asked)


def _drop_older(first_asked: OrderedDict[str, datetime], limit: datetime) -> None:
    while first_asked and next(iter(first_asked.values())) < limit:
        first_asked.popitem(last=False)
