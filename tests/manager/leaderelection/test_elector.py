import pytest

from manager.leaderelection import LeaderElector, default_identity


def test_identity_is_the_pod_name_when_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POD_NAME", "operator-7d9f-abcde")

    assert default_identity() == "operator-7d9f-abcde"


def test_identity_outside_a_cluster_is_unique_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POD_NAME", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)

    assert default_identity() != default_identity()


@pytest.mark.parametrize(
    ("lease", "renew", "retry"), [(10.0, 10.0, 2.0), (15.0, 10.0, 9.0), (15.0, 20.0, 2.0)]
)
def test_inconsistent_timings_are_rejected(lease: float, renew: float, retry: float) -> None:
    with pytest.raises(ValueError, match="lease_duration > renew_deadline"):
        LeaderElector(
            None,
            name="l",
            namespace="ns",
            lease_duration=lease,
            renew_deadline=renew,
            retry_period=retry,
        )
