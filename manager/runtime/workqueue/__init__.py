"""Work queues with client-go's semantics, layered as client-go layers them.

`Queue` (fair, de-duplicating, one worker per key) -> `DelayingQueue` (`add_after`) ->
`RateLimitingQueue` (`add_rate_limited`, `forget`, `num_requeues`), plus the rate limiters and
the `workqueue_*` Prometheus metrics.
"""

from manager.runtime.workqueue.delaying import DelayingQueue
from manager.runtime.workqueue.errors import QueueShutDown
from manager.runtime.workqueue.queue import (
    DEFAULT_PRIORITY,
    LOW_PRIORITY,
    Queue,
)
from manager.runtime.workqueue.queue_metrics import (
    NoQueueMetrics,
    PrometheusQueueMetrics,
    QueueMetrics,
)
from manager.runtime.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    default_controller_rate_limiter,
)
from manager.runtime.workqueue.rate_limiting import RateLimitingQueue

__all__ = [
    "DEFAULT_PRIORITY",
    "LOW_PRIORITY",
    "BucketRateLimiter",
    "DelayingQueue",
    "ItemExponentialFailureRateLimiter",
    "MaxOfRateLimiter",
    "NoQueueMetrics",
    "PrometheusQueueMetrics",
    "Queue",
    "QueueMetrics",
    "QueueShutDown",
    "RateLimiter",
    "RateLimitingQueue",
    "default_controller_rate_limiter",
]
