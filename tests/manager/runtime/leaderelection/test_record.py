from datetime import UTC, datetime

from manager.runtime.leaderelection import LeaseRecord, format_micro_time

LEASE = {
    "metadata": {"name": "l", "namespace": "ns", "resourceVersion": "5"},
    "spec": {
        "holderIdentity": "pod-a",
        "leaseDurationSeconds": 15,
        "acquireTime": "2026-01-01T00:00:00.000000Z",
        "renewTime": "2026-01-01T00:00:10.000000Z",
        "leaseTransitions": 3,
    },
}


def test_micro_time_is_utc_with_microseconds() -> None:
    moment = datetime(2026, 11, 21, 22, 40, 1, 123456, tzinfo=UTC)

    assert format_micro_time(moment) == "2026-11-21T22:40:01.123456Z"


def test_a_record_round_trips_through_the_lease_spec() -> None:
    record = LeaseRecord.from_lease(LEASE)

    assert record.to_spec() == LEASE["spec"]


def test_renewing_keeps_the_acquire_time_and_the_transition_count() -> None:
    renewed = LeaseRecord.from_lease(LEASE).taken_by("pod-a", 15, "NOW")

    assert renewed.holder_identity == "pod-a"
    assert renewed.acquire_time == "2026-01-01T00:00:00.000000Z"
    assert renewed.renew_time == "NOW"
    assert renewed.lease_transitions == 3


def test_a_takeover_by_another_identity_is_a_transition() -> None:
    taken = LeaseRecord.from_lease(LEASE).taken_by("pod-b", 15, "NOW")

    assert (taken.holder_identity, taken.acquire_time, taken.lease_transitions) == (
        "pod-b",
        "NOW",
        4,
    )


def test_a_released_lease_has_no_holder_and_a_one_second_duration() -> None:
    released = LeaseRecord.from_lease(LEASE).released("NOW")

    assert "holderIdentity" not in released.to_spec()
    assert released.lease_duration_seconds == 1
    assert released.lease_transitions == 3
