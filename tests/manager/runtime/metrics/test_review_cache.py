import anyio
import pytest

from manager.runtime.clock import FakeClock
from manager.runtime.metrics.review_cache import ReviewCache, SharedReviews


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


class ReviewFailed(Exception):
    pass


class Reviewer:
    """A review whose answer the test releases; counts how often it was asked."""

    def __init__(self, cache: ReviewCache[str, str]) -> None:
        self.cache = cache
        self.calls = 0
        self.release = anyio.Event()
        self.fail = False

    async def review(self) -> str:
        self.calls += 1
        await self.release.wait()
        if self.fail:
            raise ReviewFailed("API server down")
        self.cache.put("token", "alice", ttl=60)
        return "alice"


async def ask_concurrently(shared: SharedReviews, reviewer: Reviewer, count: int) -> list[object]:
    outcomes: list[object] = []

    async def ask() -> None:
        try:
            outcomes.append(
                await shared.share("token", lambda: reviewer.cache.get("token"), reviewer.review)
            )
        except ReviewFailed as error:
            outcomes.append(error)

    async with anyio.create_task_group() as tg:
        for _ in range(count):
            tg.start_soon(ask)
        await anyio.wait_all_tasks_blocked()
        reviewer.release.set()
    return outcomes


@pytest.mark.anyio
async def test_concurrent_requests_for_one_answer_share_one_review() -> None:
    reviewer = Reviewer(ReviewCache(8, clock=FakeClock()))
    shared = SharedReviews(ReviewFailed)

    assert await ask_concurrently(shared, reviewer, 10) == ["alice"] * 10
    assert reviewer.calls == 1
    assert len(shared) == 0
    # Answered from the cache afterwards.
    assert await shared.share("token", lambda: reviewer.cache.get("token"), reviewer.review) == (
        "alice"
    )
    assert reviewer.calls == 1


@pytest.mark.anyio
async def test_a_failed_review_fails_its_waiters_and_is_not_remembered() -> None:
    reviewer = Reviewer(ReviewCache(8, clock=FakeClock()))
    reviewer.fail = True
    shared = SharedReviews(ReviewFailed)

    outcomes = await ask_concurrently(shared, reviewer, 5)
    assert all(isinstance(outcome, ReviewFailed) for outcome in outcomes)
    assert reviewer.calls == 1
    reviewer.fail = False
    assert await ask_concurrently(shared, reviewer, 1) == ["alice"]
    assert reviewer.calls == 2


@pytest.mark.anyio
async def test_a_cancelled_review_hands_over_to_a_waiter() -> None:
    reviewer = Reviewer(ReviewCache(8, clock=FakeClock()))
    shared = SharedReviews(ReviewFailed)
    answers: list[str] = []
    first_client = anyio.CancelScope()

    async def ask() -> None:
        answers.append(
            await shared.share("token", lambda: reviewer.cache.get("token"), reviewer.review)
        )

    async def ask_then_go_away() -> None:
        with first_client:
            await ask()

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask_then_go_away)
        await anyio.wait_all_tasks_blocked()  # its review is under way
        tg.start_soon(ask)
        await anyio.wait_all_tasks_blocked()  # waiting for that review
        first_client.cancel()
        await anyio.wait_all_tasks_blocked()  # the waiter has started its own
        reviewer.release.set()

    assert answers == ["alice"]
    assert reviewer.calls == 2
