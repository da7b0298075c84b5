"""A delaying queue that asks a rate limiter how long to wait (client-go's rate-limiting queue).

`add_rate_limited` is for retries after a failure: the limiter decides the delay and counts the
failure. `forget` clears that count once the item succeeds; it does not replace `done`, which
must still be called for every item a worker took.
"""

from __future__ import annotations

from manager.runtime.clock import Clock
from manager.runtime.workqueue.delaying import DelayingQueue
from manager.runtime.workqueue.queue import T
from manager.runtime.workqueue.queue_metrics import QueueMetrics
from manager.runtime.workqueue.rate_limiters import RateLimiter, default_controller_rate_limiter

__all__ = ["RateLimitingQueue"]


class RateLimitingQueue(DelayingQueue[T]):
    """`DelayingQueue` plus `add_rate_limited`, `forget` and `num_requeues`."""

    def __init__(
        self,
        rate_limiter: RateLimiter[T] | None = None,
        *,
        clock: Clock | None = None,
        metrics: QueueMetrics | None = None,
    ) -> None:
        super().__init__(clock=clock, metrics=metrics)
        self.rate_limiter: RateLimiter[T] = rate_limiter or default_controller_rate_limiter(clock)

    def add_rate_limited(self, item: T) -> None:
        """Add `item` after the delay the rate limiter gives for one more failure."""
        self.add_after(item, self.rate_limiter.when(item))

    def forget(self, item: T) -> None:
        """Clear the failures of `item` in the rate limiter."""
        self.rate_limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return self.rate_limiter.num_requeues(item)
