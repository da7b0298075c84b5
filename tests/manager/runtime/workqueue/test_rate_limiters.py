import pytest

from manager.runtime.clock import FakeClock
from manager.runtime.workqueue import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    default_controller_rate_limiter,
)


def test_exponential_backoff_doubles_from_the_base_per_item() -> None:
    limiter: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter(0.005, 1000)

    assert [limiter.when("a") for _ in range(4)] == [0.005, 0.01, 0.02, 0.04]
    assert limiter.when("b") == 0.005
    assert limiter.num_requeues("a") == 4


def test_exponential_backoff_is_capped_and_survives_huge_failure_counts() -> None:
    limiter: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter(0.005, 1000)
    delays = [limiter.when("a") for _ in range(2000)]

    assert delays[17] == 655.36  # 0.005 * 2**17, the last step under the cap
    assert delays[18] == 1000
    assert delays[-1] == 1000


def test_forget_restarts_the_backoff_from_the_base() -> None:
    limiter: ItemExponentialFailureRateLimiter[str] = ItemExponentialFailureRateLimiter(0.005, 1000)
    limiter.when("a")
    limiter.when("a")
    limiter.forget("a")

    assert limiter.num_requeues("a") == 0
    assert limiter.when("a") == 0.005


def test_bucket_allows_a_burst_then_spaces_by_qps() -> None:
    clock = FakeClock()
    limiter: BucketRateLimiter[str] = BucketRateLimiter(qps=10, burst=100, clock=clock)

    burst = [limiter.when(f"k{i}") for i in range(100)]
    assert set(burst) == {0.0}
    assert limiter.when("k100") == pytest.approx(0.1)
    assert limiter.when("k101") == pytest.approx(0.2)


def test_bucket_refills_with_time_up_to_the_burst() -> None:
    clock = FakeClock()
    limiter: BucketRateLimiter[str] = BucketRateLimiter(qps=10, burst=100, clock=clock)
    for i in range(100):
        limiter.when(f"k{i}")

    clock.advance(1.0)  # ten tokens back
    assert [limiter.when("x") for _ in range(10)] == [0.0] * 10
    assert limiter.when("x") == pytest.approx(0.1)

    clock.advance(3600)
    assert [limiter.when("y") for _ in range(100)] == [0.0] * 100
    assert limiter.when("y") > 0


def test_bucket_rejects_impossible_settings() -> None:
    with pytest.raises(ValueError, match="qps"):
        BucketRateLimiter(qps=0, burst=1)


def test_max_of_takes_the_longest_delay_and_counts_everywhere() -> None:
    clock = FakeClock()
    limiter: MaxOfRateLimiter[str] = default_controller_rate_limiter(clock)

    # The bucket's burst covers the first 100 retries, so the per-item backoff decides...
    assert limiter.when("a") == 0.005
    assert limiter.when("a") == 0.01
    for i in range(98):
        limiter.when(f"other{i}")
    # ...and once the bucket is empty, its spacing wins over a fresh item's 5 ms.
    assert limiter.when("b") == pytest.approx(0.1)
    assert limiter.num_requeues("a") == 2

    limiter.forget("a")
    assert limiter.num_requeues("a") == 0


def test_max_of_needs_a_limiter() -> None:
    with pytest.raises(ValueError, match="at least one"):
        MaxOfRateLimiter[str]()
