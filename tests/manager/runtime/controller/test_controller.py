import io
import itertools
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio
import pytest
from prometheus_client import REGISTRY

from manager.runtime.client.availability import ApiAvailability
from manager.runtime.client.errors import TransportError
from manager.runtime.clock import FakeClock
from manager.runtime.controller import (
    CacheSyncTimeoutError,
    Controller,
    Request,
    Result,
    TerminalError,
    taken_priority,
)
from manager.runtime.logging import configure_logging
from manager.runtime.workqueue import (
    DEFAULT_PRIORITY,
    LOW_PRIORITY,
    ItemExponentialFailureRateLimiter,
)

pytestmark = pytest.mark.anyio

_names = itertools.count()
A, B = Request("ns", "a"), Request("ns", "b")


def metric(name: str, controller: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, {"controller": controller, **labels})
    return 0.0 if value is None else value


class Recorder:
    """A reconciler that records calls and does what the test scripts per request."""

    def __init__(self) -> None:
        self.calls: list[Request] = []
        self.script: dict[Request, list[Callable[[], Awaitable[Result | None]]]] = {}

    async def reconcile(self, request: Request) -> Result | None:
        self.calls.append(request)
        steps = self.script.get(request)
        if steps:
            return await steps.pop(0)()
        return None


def raise_(error: Exception) -> Callable[[], Awaitable[Result | None]]:
    async def step() -> Result | None:
        raise error

    return step


def return_(result: Result) -> Callable[[], Awaitable[Result | None]]:
    async def step() -> Result | None:
        return result

    return step


@asynccontextmanager
async def running(controller: Controller) -> AsyncIterator[Controller]:
    async with anyio.create_task_group() as tg:
        await tg.start(controller.run)
        yield controller
        tg.cancel_scope.cancel()


def new_controller(reconciler: Recorder, clock: FakeClock, **options: object) -> Controller:
    limiter: ItemExponentialFailureRateLimiter[Request] = ItemExponentialFailureRateLimiter(1, 60)
    return Controller(
        f"test-{next(_names)}",
        reconciler,
        rate_limiter=limiter,
        clock=clock,
        **options,  # type: ignore[arg-type]
    )


async def test_a_successful_reconcile_runs_once_and_is_counted() -> None:
    clock, reconciler = FakeClock(), Recorder()
    async with running(new_controller(reconciler, clock)) as controller:
        controller.queue.add(A)
        await clock.settle(3600)

    assert reconciler.calls == [A]
    assert metric("controller_runtime_reconcile_total", controller.name, result="success") == 1
    assert metric("controller_runtime_reconcile_total", controller.name, result="error") == 0


async def test_errors_are_retried_with_growing_backoff_until_success() -> None:
    clock, reconciler = FakeClock(), Recorder()
    reconciler.script[A] = [raise_(RuntimeError("api down")), raise_(RuntimeError("api down"))]
    async with running(new_controller(reconciler, clock)) as controller:
        controller.queue.add(A)
        await clock.settle()
        assert len(reconciler.calls) == 1
        await clock.settle(1)  # first retry after 1 s
        assert len(reconciler.calls) == 2
        await clock.settle(1.5)  # second retry waits 2 s
        assert len(reconciler.calls) == 2
        await clock.settle(0.5)
        assert len(reconciler.calls) == 3
        assert controller.queue.num_requeues(A) == 0, "success forgets the failures"
        await clock.settle(3600)

    assert len(reconciler.calls) == 3
    assert metric("controller_runtime_reconcile_errors_total", controller.name) == 2
    assert metric("controller_runtime_reconcile_total", controller.name, result="success") == 1


async def test_a_terminal_error_is_recorded_and_not_retried() -> None:
    clock, reconciler = FakeClock(), Recorder()
    reconciler.script[A] = [raise_(TerminalError("spec.replicas must be >= 0"))]
    async with running(new_controller(reconciler, clock)) as controller:
        controller.queue.add(A)
        await clock.settle(3600)

    assert reconciler.calls == [A]
    assert metric("controller_runtime_terminal_reconcile_errors_total", controller.name) == 1
    assert metric("controller_runtime_reconcile_errors_total", controller.name) == 1


async def test_terminal_errors_raised_inside_a_task_group_are_still_terminal() -> None:
    async def bad_child() -> None:
        raise TerminalError("bad")

    async def fan_out() -> Result | None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(bad_child)
        return None

    clock, reconciler = FakeClock(), Recorder()
    reconciler.script[A] = [fan_out]
    async with running(new_controller(reconciler, clock)) as controller:
        controller.queue.add(A)
        await clock.settle(3600)

    assert reconciler.calls == [A]


async def test_requeue_after_reconciles_again_after_the_delay() -> None:
    clock, reconciler = FakeClock(), Recorder()
    reconciler.script[A] = [return_(Result(requeue_after=30))]
    async with running(new_controller(reconciler, clock)) as controller:
        controller.queue.add(A)
        await clock.settle(29)
        assert reconciler.calls == [A]
        await clock.settle(1)
        assert reconciler.calls == [A, A]

    assert (
        metric("controller_runtime_reconcile_total", controller.name, result="requeue_after") == 1
    )


async def test_a_pass_requeued_at_low_priority_comes_back_at_it_and_knows_it() -> None:
    clock, reconciler = FakeClock(), Recorder()
    priorities: list[tuple[Request, int]] = []

    async def note_priority() -> Result | None:
        priorities.append((reconciler.calls[-1], taken_priority()))
        return None

    reconciler.script[A] = [return_(Result(requeue_after=1, priority=LOW_PRIORITY)), note_priority]
    reconciler.script[B] = [note_priority]
    async with running(new_controller(reconciler, clock)) as controller:
        controller.queue.add(A)
        await clock.settle()
        controller.queue.add(B)  # queued while A waits out its delay
        await clock.settle(1)

    assert reconciler.calls == [A, B, A]
    assert priorities == [(B, DEFAULT_PRIORITY), (A, LOW_PRIORITY)]


async def test_requeue_goes_through_the_rate_limiter() -> None:
    clock, reconciler = FakeClock(), Recorder()
    reconciler.script[A] = [return_(Result(requeue=True))]
    async with running(new_controller(reconciler, clock)) as controller:
        controller.queue.add(A)
        await clock.settle(1)

    assert reconciler.calls == [A, A]
    assert metric("controller_runtime_reconcile_total", controller.name, result="requeue") == 1


async def test_an_api_failure_is_logged_by_its_message_and_a_bug_with_its_traceback() -> None:
    clock, reconciler = FakeClock(), Recorder()
    reconciler.script[A] = [raise_(TransportError("PATCH /api/v1/x: ConnectionResetError()"))]
    reconciler.script[B] = [raise_(KeyError("bug"))]
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    try:
        async with running(new_controller(reconciler, clock)) as controller:
            controller.queue.add(A)
            controller.queue.add(B)
            await clock.settle()
    finally:
        configure_logging("info")

    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    errors = [r for r in records if r["msg"] == "reconciler error"]
    api_failure, bug = sorted(errors, key=lambda r: "exception" in r)
    assert api_failure["err"] == "PATCH /api/v1/x: ConnectionResetError()"
    assert api_failure["error_type"] == "TransportError"
    assert "exception" not in api_failure
    assert "KeyError: 'bug'" in bug["exception"]


async def test_one_failing_key_does_not_stop_the_others() -> None:
    clock, reconciler = FakeClock(), Recorder()
    reconciler.script[A] = [raise_(KeyError("bug")) for _ in range(10)]
    async with running(new_controller(reconciler, clock)) as controller:
        controller.queue.add(A)
        await clock.settle()
        controller.queue.add(B)
        await clock.settle()

    assert reconciler.calls == [A, B]


async def test_a_key_is_never_reconciled_twice_at_once_but_keys_run_in_parallel() -> None:
    clock = FakeClock()
    running_now: Counter[Request] = Counter()
    overlaps: list[Request] = []
    peak = 0
    release = anyio.Event()

    class Slow:
        async def reconcile(self, request: Request) -> None:
            nonlocal peak
            running_now[request] += 1
            if running_now[request] > 1:
                overlaps.append(request)
            peak = max(peak, sum(running_now.values()))
            await release.wait()
            running_now[request] -= 1

    controller = Controller(
        f"test-{next(_names)}", Slow(), max_concurrent_reconciles=4, clock=clock
    )
    async with running(controller):
        for request in [A, B, A, B, A]:
            controller.queue.add(request)
            await clock.settle()
        assert metric("controller_runtime_active_workers", controller.name) == 2
        release.set()
        await clock.settle()

    assert overlaps == []
    assert peak == 2
    assert metric("controller_runtime_max_concurrent_reconciles", controller.name) == 4


async def test_a_reconcile_past_its_timeout_is_cancelled_counted_and_retried() -> None:
    clock, reconciler = FakeClock(), Recorder()

    cancelled = anyio.Event()

    async def hang() -> Result | None:
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()
        return None

    reconciler.script[A] = [hang]
    async with running(new_controller(reconciler, clock, reconcile_timeout=0.01)) as controller:
        controller.queue.add(A)
        with anyio.fail_after(5):
            await cancelled.wait()
        await clock.settle(1)

    assert reconciler.calls == [A, A]
    assert metric("controller_runtime_reconcile_timeouts_total", controller.name) == 1
    assert metric("controller_runtime_reconcile_errors_total", controller.name) == 1


async def test_drain_finishes_in_flight_reconciles_and_starts_no_new_ones() -> None:
    clock = FakeClock()
    started: list[Request] = []
    finished: list[Request] = []
    release = anyio.Event()

    class Slow:
        async def reconcile(self, request: Request) -> None:
            started.append(request)
            await release.wait()
            finished.append(request)

    controller = Controller(f"test-{next(_names)}", Slow(), clock=clock)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            await tg.start(controller.run)
            controller.queue.add(A)
            controller.queue.add(B)
            await clock.settle()
            tg.start_soon(controller.drain)
            await clock.settle()
            release.set()

    assert started == [A]
    assert finished == [A]


async def test_a_plain_async_function_can_be_the_reconciler() -> None:
    seen: list[Request] = []

    async def reconcile(request: Request) -> Result:
        seen.append(request)
        return Result()

    async with running(Controller(f"test-{next(_names)}", reconcile)) as controller:
        controller.queue.add(A)
        await anyio.wait_all_tasks_blocked()

    assert seen == [A]


async def test_the_controller_waits_for_its_sources_to_sync() -> None:
    class Source:
        def __init__(self) -> None:
            self.synced = anyio.Event()

        def add_event_handler(self, handler: object) -> None:
            pass

        async def wait_for_sync(self) -> None:
            await self.synced.wait()

    source, reconciler = Source(), Recorder()
    controller = new_controller(reconciler, FakeClock())
    controller.watch(source, object())
    controller.queue.add(A)
    async with anyio.create_task_group() as tg:
        tg.start_soon(controller.run)
        await anyio.wait_all_tasks_blocked()
        assert reconciler.calls == []
        source.synced.set()
        await anyio.wait_all_tasks_blocked()
        tg.cancel_scope.cancel()

    assert reconciler.calls == [A]


async def test_sources_that_never_sync_fail_the_controller() -> None:
    class NeverSyncs:
        def add_event_handler(self, handler: object) -> None:
            pass

        async def wait_for_sync(self) -> None:
            await anyio.sleep_forever()

    controller = new_controller(Recorder(), FakeClock(), cache_sync_timeout=0.01)
    controller.watch(NeverSyncs(), object())
    with pytest.raises(CacheSyncTimeoutError, match="did not sync"):
        await controller.run()


def test_result_refuses_a_negative_delay() -> None:
    with pytest.raises(ValueError, match="negative"):
        Result(requeue_after=-1)


def test_requests_print_as_namespace_slash_name() -> None:
    assert str(Request("ns", "a")) == "ns/a"
    assert str(Request("", "node-1")) == "node-1"


class Readyz:
    def __init__(self) -> None:
        self.ready = False

    async def __call__(self) -> bool:
        return self.ready


async def test_keys_that_failed_while_the_api_server_was_away_are_retried_once_it_is_back() -> None:
    clock, reconciler, readyz = FakeClock(start=0.0), Recorder(), Readyz()
    availability = ApiAvailability(readyz, clock)
    refused = raise_(TransportError("connection refused"))
    reconciler.script[A] = [refused] * 4 + [raise_(RuntimeError("conflict"))]
    reconciler.script[B] = [raise_(RuntimeError("a bug"))]
    called_at: dict[Request, list[float]] = {A: [], B: []}
    reconcile = reconciler.reconcile

    async def timed(request: Request) -> Result | None:
        called_at[request].append(clock.now())
        return await reconcile(request)

    reconciler.reconcile = timed  # type: ignore[method-assign]
    async with anyio.create_task_group() as tg:
        await tg.start(availability.run)
        async with running(new_controller(reconciler, clock, api_availability=availability)) as c:
            c.queue.add(B)  # fails while the API server answers: its own backoff, 1 s
            await clock.settle()
            availability.lost()  # what the REST client does when a request gets no answer
            c.queue.add(A)
            for _ in range(17):
                await clock.settle(0.5)
            assert called_at[A] == [0.0, 1.0, 3.0, 7.0], "backoff 1, 2, 4 s; next due at 15 s"
            readyz.ready = True
            await clock.settle(0.5)
            await clock.settle(0.5)  # the probe at 9 s finds it ready
            assert called_at[A] == [0.0, 1.0, 3.0, 7.0, 9.0]
            await clock.settle(0.5)
            await clock.settle(0.5)
            # The outage's failures are not the key's: its own failure backs off from the start.
            assert called_at[A] == [0.0, 1.0, 3.0, 7.0, 9.0, 10.0]
            assert called_at[B] == [0.0, 1.0]
            await clock.settle(3600)
        tg.cancel_scope.cancel()


async def test_extra_workers_take_only_work_that_can_wait_and_only_when_not_held() -> None:
    clock = FakeClock()
    releases: dict[Request, anyio.Event] = {}
    held = True
    taken: list[tuple[Request, int]] = []

    class Slow:
        async def reconcile(self, request: Request) -> None:
            taken.append((request, taken_priority()))
            await releases.setdefault(request, anyio.Event()).wait()

    def release(request: Request) -> None:
        releases.setdefault(request, anyio.Event()).set()

    controller = Controller(
        f"test-{next(_names)}",
        Slow(),
        max_concurrent_reconciles=1,
        low_priority_workers=2,
        hold_low_priority=lambda: held,
        clock=clock,
    )
    services = [Request("ns", f"service-{index}") for index in range(3)]
    async with running(controller):
        controller.queue.add(A)  # urgent: the one general worker takes it
        for request in services:
            controller.queue.add(request, priority=LOW_PRIORITY)
        await clock.settle(1)
        assert taken == [(A, DEFAULT_PRIORITY)], "held: the extra workers took nothing"
        held = False
        await clock.settle(1)
        assert taken[1:] == [(services[0], LOW_PRIORITY), (services[1], LOW_PRIORITY)]
        release(services[0])
        controller.queue.add(B)  # urgent, the general worker busy: no extra worker takes it
        await clock.settle(1)
        assert taken[3:] == [], "an extra worker took urgent work, or waiting work before it"
        release(A)
        await clock.settle(1)
        assert taken[3:] == [(B, DEFAULT_PRIORITY), (services[2], LOW_PRIORITY)]
        for request in (B, *services):
            release(request)
        await clock.settle(1)
