from manager.runtime.clock import FakeClock
from manager.runtime.events import Correlator, PendingEvent

POD = ("v1/Pod", "ns", "web-0", "uid-1")
OTHER = ("v1/Pod", "ns", "web-1", "uid-2")


def pending(message: str = "pulled image", obj: tuple[str, str, str, str] = POD) -> PendingEvent:
    return PendingEvent(obj, "Normal", "Pulled", message)


def test_repeats_of_one_event_count_up_on_the_event_already_written() -> None:
    correlator = Correlator(FakeClock())

    first = correlator.correlate(pending())
    assert first is not None
    assert (first.count, first.existing) == (1, None)
    correlator.written(first, "web-0.abc")

    second = correlator.correlate(pending())
    third = correlator.correlate(pending())
    assert second is not None
    assert third is not None
    assert (second.count, second.existing) == (2, "web-0.abc")
    assert (third.count, third.existing) == (3, "web-0.abc")


def test_different_messages_are_different_events_until_ten_then_they_are_combined() -> None:
    correlator = Correlator(FakeClock())
    messages = []
    for index in range(12):
        correlation = correlator.correlate(pending(f"message {index}"))
        assert correlation is not None
        if correlation.existing is None:
            correlator.written(correlation, f"event-{index}")
        messages.append((correlation.message, correlation.count, correlation.existing))

    assert messages[9] == ("message 9", 1, None)
    assert messages[10] == ("(combined from similar events): message 10", 1, None)
    assert messages[11] == ("(combined from similar events): message 11", 2, "event-10")


def test_similar_events_stop_being_combined_after_the_window() -> None:
    clock = FakeClock()
    correlator = Correlator(clock)
    for index in range(11):
        correlator.correlate(pending(f"message {index}"))

    clock.advance(601)
    correlation = correlator.correlate(pending("fresh message"))

    assert correlation is not None
    assert correlation.message == "fresh message"


def test_the_spam_filter_allows_a_burst_then_one_event_per_refill_period() -> None:
    clock = FakeClock()
    correlator = Correlator(clock, burst=25, refill_seconds=300)

    allowed = [correlator.correlate(pending(f"m{i}")) is not None for i in range(30)]
    assert allowed == [True] * 25 + [False] * 5
    assert correlator.correlate(pending(obj=OTHER)) is not None

    clock.advance(299)
    assert correlator.correlate(pending()) is None
    clock.advance(1)
    assert correlator.correlate(pending()) is not None
    assert correlator.correlate(pending()) is None


def test_a_forgotten_event_starts_counting_again_as_a_new_object() -> None:
    correlator = Correlator(FakeClock())
    first = correlator.correlate(pending())
    assert first is not None
    correlator.written(first, "web-0.abc")

    correlator.forget(first)
    again = correlator.correlate(pending())

    assert again is not None
    assert (again.count, again.existing) == (1, None)
