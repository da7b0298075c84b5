"""The base work queue, with client-go's contract, and priorities as controller-runtime's
priority queue has them.

* Fair within a priority: items are handed out in the order they were added; an item of a
  higher priority goes before every item of a lower one (`add(item, priority=LOW_PRIORITY)`:
  work that can wait until nothing more urgent is queued). An item added again at a higher
  priority than the one it is queued at moves up (to the back of its new priority); never down.
* Stingy: an item added several times before a worker takes it is processed once, and an item
  is never processed by two workers at once. An item added while it is being processed is
  queued again, once, when the worker calls `done`.
* Many producers and consumers; `get` suspends until an item is ready or the queue shuts down.
  `get(below=priority)` takes only items queued below `priority`, and only while nothing at
  `priority` or above is queued: what a controller's extra workers for waiting work use. A
  worker woken for an item it may no longer take (moved up past its `below`) passes the
  wake-up on, so an item is never left queued while a worker that could take it waits.

Two collections carry those rules: `dirty` maps every item that needs processing (queued or
waiting for its current processing to finish) to its priority, and `processing` holds the items
workers hold now. Each priority has its own FIFO; an item that moved up leaves a stale entry
behind in its old FIFO, skipped when it comes to the front (unless the item is queued at that
priority again by then: it is taken there, a little ahead of its turn, and never twice). After
`shut_down` the queue refuses new items but still hands out the ones already queued, as
client-go does; `get` raises `QueueShutDown` once none are left.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Hashable
from typing import Generic, TypeVar

import anyio

from manager.runtime.workqueue.errors import QueueShutDown
from manager.runtime.workqueue.priorities import DEFAULT_PRIORITY, LOW_PRIORITY
from manager.runtime.workqueue.queue_metrics import NoQueueMetrics, QueueMetrics

__all__ = [
    "DEFAULT_PRIORITY",
    "LOW_PRIORITY",
    "Queue",
]

T = TypeVar("T", bound=Hashable)


class Queue(Generic[T]):
    """A fair, de-duplicating FIFO of keys for workers (see the module docstring)."""

    def __init__(self, *, metrics: QueueMetrics | None = None) -> None:
        self._metrics: QueueMetrics = metrics or NoQueueMetrics()
        self._fifos: dict[int, deque[T]] = {}
        self._queued: dict[T, int] = {}
        """Each queued item's priority (an entry in the FIFO of another priority is stale)."""
        self._counts: Counter[int] = Counter()
        """Queued items per priority."""
        self._dirty: dict[T, int] = {}
        self._processing: dict[T, int] = {}
        """The items workers hold, with the priority each was taken at."""
        self._getters: deque[tuple[anyio.Event, int | None]] = deque()
        """Waiting workers, in arrival order, each with the `below` it asked for."""
        self._shutting_down = False
        self._drained: anyio.Event | None = None

    def add(self, item: T, *, priority: int = DEFAULT_PRIORITY) -> None:
        """Mark `item` as needing processing at `priority`; a no-op if it already is at that
        priority or higher, or the queue is shut down."""
        if self._shutting_down:
            return
        current = self._dirty.get(item)
        if current is not None and current >= priority:
            return
        self._dirty[item] = priority
        if item in self._processing:
            return  # `done` queues it again, so no second worker can take it meanwhile.
        if current is None:
            self._enqueue(item, priority)
        else:
            self._move_up(item, priority)

    def __len__(self) -> int:
        """Items queued and not yet taken by a worker."""
        return len(self._queued)

    def queued_at_or_above(self, priority: int) -> int:
        """Items queued at `priority` or higher: whether more urgent work is waiting."""
        return sum(count for queued, count in self._counts.items() if queued >= priority)

    async def get(self, *, below: int | None = None) -> T:
        """Take the oldest item of the highest priority queued; the caller must call
        `done(item)` when finished with it. With `below`, wait until items are queued and all
        of them are below that priority (a worker that only takes work that can wait)."""
        while not self._takeable(below):
            if self._shutting_down and (below is not None or not self._queued):
                raise QueueShutDown
            await self._wait_for_item(below)
            if not self._takeable(below):
                # Woken for an item this worker may no longer take (it moved up to a priority
                # a worker for waiting work never takes, or something more urgent came first):
                # the wake-up goes on to a worker that can, or the item waits for the next add.
                self._wake_one()
        item, priority = self._pop()
        self._metrics.taken(item, priority)
        self._processing[item] = priority
        del self._dirty[item]
        # The last urgent item gone, a worker waiting for waiting work may go now (the others
        # were each woken by the add of an item).
        self._wake_one(restricted_only=True)
        return item

    def taken_at(self, item: T) -> int:
        """The priority a worker took `item` at (it holds it now)."""
        return self._processing[item]

    def done(self, item: T) -> None:
        """Mark `item` as processed; if it was added meanwhile it is queued again now."""
        self._metrics.done(item)
        self._processing.pop(item, None)
        if item in self._dirty:
            self._enqueue(item, self._dirty[item])
        elif not self._processing and self._drained is not None:
            self._drained.set()

    def shut_down(self) -> None:
        """Refuse new items and wake every waiting worker; queued items are still handed out."""
        self._shutting_down = True
        while self._getters:
            self._getters.popleft()[0].set()

    async def shut_down_with_drain(self) -> None:
        """Shut down, then return once every item being processed has been marked `done`."""
        self.shut_down()
        if self._processing:
            self._drained = anyio.Event()
            await self._drained.wait()

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    @property
    def processing(self) -> int:
        """Items held by workers now."""
        return len(self._processing)

    def _enqueue(self, item: T, priority: int) -> None:
        self._metrics.added(item, priority)
        self._queued[item] = priority
        self._counts[priority] += 1
        self._fifos.setdefault(priority, deque()).append(item)
        self._wake_one()

    def _move_up(self, item: T, priority: int) -> None:
        self._metrics.moved_up(self._queued[item], priority)
        self._counts[self._queued[item]] -= 1
        self._counts[priority] += 1
        self._queued[item] = priority  # its entry in the lower FIFO is stale from now on
        self._fifos.setdefault(priority, deque()).append(item)

    def _pop(self) -> tuple[T, int]:
        for priority in sorted(self._fifos, reverse=True):
            fifo = self._fifos[priority]
            while fifo:
                item = fifo.popleft()
                if self._queued.get(item) == priority:
                    del self._queued[item]
                    self._counts[priority] -= 1
                    return item, priority
            del self._fifos[priority]
        raise AssertionError("an item is queued but no FIFO holds it")

    def _takeable(self, below: int | None) -> bool:
        if below is None:
            return bool(self._queued)
        return bool(self._queued) and not self.queued_at_or_above(below)

    def _wake_one(self, *, restricted_only: bool = False) -> None:
        """Wake the longest-waiting worker that can take a queued item now."""
        for index, (woken, below) in enumerate(self._getters):
            if (below is not None or not restricted_only) and self._takeable(below):
                del self._getters[index]
                woken.set()
                return

    async def _wait_for_item(self, below: int | None) -> None:
        waiter = (anyio.Event(), below)
        self._getters.append(waiter)
        try:
            await waiter[0].wait()
        except BaseException:
            # Cancelled: withdraw, and if an item was meant for us, pass the wake-up on.
            if waiter[0].is_set():
                self._wake_one()
            else:
                self._getters.remove(waiter)
            raise
