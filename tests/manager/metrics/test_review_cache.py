import pytest

from manager.clock import FakeClock
from manager.metrics.review_cache import ReviewCache


def test_an_answer_is_kept_for_its_own_time_to_live() -> None:
    clock = FakeClock()
    cache: ReviewCache[str, str] = ReviewCache(8, clock=clock)
    cache.put("allowed", "yes", ttl=300)
    cache.put("denied", "no", ttl=30)

    clock.advance(29.9)
    assert (cache.get("allowed"), cache.get("denied")) == ("yes", "no")
    clock.advance(0.1)
    assert (cache.get("allowed"), cache.get("denied")) == ("yes", None)
    clock.advance(270)
    assert cache.get("allowed") is None
    assert len(cache) == 0


def test_the_least_recently_used_answer_goes_first_when_full() -> None:
    cache: ReviewCache[int, int] = ReviewCache(3, clock=FakeClock())
    for key in range(3):
        cache.put(key, key, ttl=60)
    assert cache.get(0) == 0  # 0 is now the most recently used
    cache.put(3, 3, ttl=60)

    assert len(cache) == 3
    assert cache.get(1) is None
    assert [cache.get(key) for key in (0, 2, 3)] == [0, 2, 3]


def test_many_distinct_keys_never_grow_it_past_its_bound() -> None:
    cache: ReviewCache[int, int] = ReviewCache(16, clock=FakeClock())
    for key in range(10_000):
        cache.put(key, key, ttl=60)
    assert len(cache) == 16
    assert cache.get(9_999) == 9_999


def test_storing_again_renews_and_a_zero_ttl_forgets() -> None:
    clock = FakeClock()
    cache: ReviewCache[str, str] = ReviewCache(4, clock=clock)
    cache.put("token", "alice", ttl=60)
    clock.advance(50)
    cache.put("token", "alice", ttl=60)
    clock.advance(50)
    assert cache.get("token") == "alice"
    cache.put("token", "alice", ttl=0)
    assert cache.get("token") is None


def test_it_holds_at_least_one_entry() -> None:
    with pytest.raises(ValueError, match="at least one"):
        ReviewCache(0)
