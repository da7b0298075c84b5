import socket

import pytest

from manager.runtime.client import RestClient
from manager.runtime.identity import Identity
from manager.runtime.leaderelection import LeaderElector, default_holder_identity

IDENTITY = Identity.for_product("test-operator", domain="example.com", version="0")


class Transport:
    """Never called: the elector only talks to the API server in acquire/hold/release."""

    server = "https://apiserver.invalid"


def api() -> RestClient:
    return RestClient(Transport())  # type: ignore[arg-type]


def test_the_holder_identity_is_the_host_name_and_a_fresh_uuid() -> None:
    first, second = default_holder_identity(), default_holder_identity()

    assert first.startswith(f"{socket.gethostname()}_")
    assert len(first.rpartition("_")[2]) == 36
    assert first != second, "each process (and each restarted container) is a new candidate"


def test_lease_name_namespace_and_field_manager_come_from_the_caller() -> None:
    elector = LeaderElector(api(), IDENTITY, name="lock", namespace="ops", holder_identity="a")

    assert (elector.name, elector.namespace, elector.holder_identity) == ("lock", "ops", "a")
    assert elector._field_manager == "test-operator-leader-election"


@pytest.mark.parametrize(
    ("lease", "renew", "retry"), [(10.0, 10.0, 2.0), (15.0, 10.0, 9.0), (15.0, 20.0, 2.0)]
)
def test_inconsistent_timings_are_rejected(lease: float, renew: float, retry: float) -> None:
    with pytest.raises(ValueError, match="lease_duration > renew_deadline"):
        LeaderElector(
            api(),
            IDENTITY,
            name="l",
            namespace="ns",
            lease_duration=lease,
            renew_deadline=renew,
            retry_period=retry,
        )
