from prometheus_client import REGISTRY

from manager.runtime.metrics.controller_runtime import RECONCILE_TIME_BUCKETS, ControllerMetrics


def value(name: str, **labels: str) -> float:
    sample = REGISTRY.get_sample_value(name, labels)
    return 0.0 if sample is None else sample


def test_reconcile_time_buckets_are_controller_runtimes() -> None:
    assert RECONCILE_TIME_BUCKETS[:6] == (0.005, 0.01, 0.025, 0.05, 0.1, 0.15)
    assert 0.5 in RECONCILE_TIME_BUCKETS
    assert 1.25 in RECONCILE_TIME_BUCKETS
    assert RECONCILE_TIME_BUCKETS[-6:] == (20.0, 25.0, 30.0, 40.0, 50.0, 60.0)
    assert len(RECONCILE_TIME_BUCKETS) == len(set(RECONCILE_TIME_BUCKETS))
    assert list(RECONCILE_TIME_BUCKETS) == sorted(RECONCILE_TIME_BUCKETS)


def test_a_terminal_timeout_failure_counts_in_every_series_it_belongs_to() -> None:
    metrics = ControllerMetrics("metrics-unit", max_concurrent_reconciles=2)
    metrics.failed(terminal=True, timed_out=False)
    metrics.failed(terminal=False, timed_out=True)
    metrics.reconciled("success")

    assert (
        value("controller_runtime_reconcile_total", controller="metrics-unit", result="error") == 2
    )
    assert value("controller_runtime_reconcile_errors_total", controller="metrics-unit") == 2
    assert (
        value("controller_runtime_terminal_reconcile_errors_total", controller="metrics-unit") == 1
    )
    assert value("controller_runtime_reconcile_timeouts_total", controller="metrics-unit") == 1
    assert (
        value("controller_runtime_reconcile_total", controller="metrics-unit", result="success")
        == 1
    )
