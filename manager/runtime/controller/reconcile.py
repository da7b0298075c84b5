"""The reconciler contract: a `Request` names an object, a `Result` says when to look again.

Reconciliation is level-based. A `Request` carries only the namespace and name, never the event
or the object: the reconciler reads the current state from the cache and makes the world match
it, whether the object was created, changed or deleted (then it is simply missing).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

__all__ = ["Reconciler", "ReconcilerFunc", "Request", "Result", "taken_at", "taken_priority"]

_TAKEN_AT: ContextVar[int] = ContextVar("taken_at", default=0)


@dataclass(frozen=True, slots=True)
class Request:
    """The object to reconcile; `namespace` is "" for cluster-scoped kinds."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass(frozen=True, slots=True)
class Result:
    """What to do after a successful reconcile.

    `requeue_after` (seconds) reconciles again after that delay: the way to wait for something
    (a rollout, a dependency) without holding a worker. `requeue` re-queues through the rate
    limiter; controller-runtime deprecated it because backoff is for errors, prefer
    `requeue_after`. The default, `Result()`, means "done until something changes".
    `priority` is the queue priority of that next pass (`LOW_PRIORITY`: work that can wait
    until the queue holds nothing more urgent); the default priority when None.
    """

    requeue: bool = False
    requeue_after: float | None = None
    priority: int | None = None

    def __post_init__(self) -> None:
        if self.requeue_after is not None and self.requeue_after < 0:
            raise ValueError("requeue_after must not be negative")


class Reconciler(Protocol):
    async def reconcile(self, request: Request) -> Result | None:
        """Make the world match the desired state of `request`'s object.

        Raise to retry with backoff (`TerminalError` to record the failure without retrying);
        return `Result(requeue_after=...)` to look again later; `None` means `Result()`.
        """
        ...


ReconcilerFunc = Callable[[Request], Awaitable[Result | None]]


def taken_priority() -> int:
    """The queue priority the running reconcile's request was taken at (the default priority,
    0, outside a controller's worker): a pass taken at `LOW_PRIORITY` runs when nothing more
    urgent is queued, so it need not leave work for later."""
    return _TAKEN_AT.get()


@contextmanager
def taken_at(priority: int) -> Iterator[None]:
    """Run a reconcile with `taken_priority()` answering `priority` (the controller's workers)."""
    token = _TAKEN_AT.set(priority)
    try:
        yield
    finally:
        _TAKEN_AT.reset(token)
