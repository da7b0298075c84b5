"""The base work queue, with client-go's contract.

* Fair: items are handed out in the order they were added.
* Stingy: an item added several times before a worker takes it is processed once, and an item
  is never processed by two workers at once. An item added while it is being processed is
  queued again, once, when the worker calls `done`.
* Many producers and consumers; `get` suspends until an item is ready or the queue shuts down.

Two sets carry those rules: `dirty` holds every item that needs processing (queued or waiting
for its current processing to finish) and `processing` holds the items workers hold now. After
`shut_down` the queue refuses new items but still hands out the ones already queued, as
client-go does; `get` raises `QueueShutDown` once none are left.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

import anyio

from manager.runtime.workqueue.errors import QueueShutDown
from manager.runtime.workqueue.queue_metrics import NoQueueMetrics, QueueMetrics

__all__ = [
    "Queue",
]

T = TypeVar("T", bound=Hashable)


class Queue(Generic[T]):
    """A fair, de-duplicating FIFO of keys for workers (see the module docstring)."""

    def __init__(self, *, metrics: QueueMetrics | None = None) -> None:
        self._metrics: QueueMetrics = metrics or NoQueueMetrics()
        self._queue: deque[T] = deque()
        self._dirty: set[T] = set()
        self._processing: set[T] = set()
        self._getters: deque[anyio.Event] = deque()
        self._shutting_down = False
        self._drained: anyio.Event | None = None

    def add(self, item: T) -> None:
        """Mark `item` as needing processing; a no-op if it already is or the queue is shut down."""
        if self._shutting_down or item in self._dirty:
            return
        self._dirty.add(item)
        if item in self._processing:
            return  # `done` queues it again, so no second worker can take it meanwhile.
        self._enqueue(item)

    def __len__(self) -> int:
        """Items queued and not yet taken by a worker."""
        return len(self._queue)

    async def get(self) -> T:
        """Take the oldest queued item; the caller must call `done(item)` when finished with it."""
        while not self._queue:
            if self._shutting_down:
                raise QueueShutDown
            await self._wait_for_item()
        item = self._queue.popleft()
        self._metrics.taken(item)
        self._processing.add(item)
        self._dirty.discard(item)
        return item

    def done(self, item: T) -> None:
        """Mark `item` as processed; if it was added meanwhile it is queued again now."""
        self._metrics.done(item)
        self._processing.discard(item)
        if item in self._dirty:
            self._enqueue(item)
        elif not self._processing and self._drained is not None:
            self._drained.set()

    def shut_down(self) -> None:
        """Refuse new items and wake every waiting worker; queued items are still handed out."""
        self._shutting_down = True
        while self._getters:
            self._getters.popleft().set()

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

    def _enqueue(self, item: T) -> None:
        self._metrics.added(item)
        self._queue.append(item)
        if self._getters:
            self._getters.popleft().set()

    async def _wait_for_item(self) -> None:
        woken = anyio.Event()
        self._getters.append(woken)
        try:
            await woken.wait()
        except BaseException:
            # Cancelled: withdraw, and if an item was meant for us, pass the wake-up on.
            if woken.is_set():
                if self._queue and self._getters:
                    self._getters.popleft().set()
            else:
                self._getters.remove(woken)
            raise
