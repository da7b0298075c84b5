"""The upstream `dynamo_operator_*` series: results, error types, and a gauge that reads zero."""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client import REGISTRY

from manager.app.metrics import MeteredReconciler, ResourceCounter, error_type
from manager.runtime.cache import Cache
from manager.runtime.client import Conflict, Invalid, ServerError, TransportError
from manager.runtime.controller import Request, Result
from manager.runtime.kinds import ResourceKind

WIDGET = ResourceKind("example.com/v1", "Widget", "widgets", namespaced=True)


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.parametrize(
    ("error", "label"),
    [
        (Conflict(409, "Conflict", "stale", {}), "conflict"),
        (Invalid(422, "Invalid", "bad", {}), "validation"),
        (ServerError(503, "ServiceUnavailable", "", {}), "unavailable"),
        (ServerError(504, "Timeout", "", {}), "server_timeout"),
        (TransportError("reset"), "unavailable"),
        (TimeoutError(), "timeout"),
        (RuntimeError("bug"), "internal"),
    ],
)
def test_errors_get_the_upstream_error_type(error: Exception, label: str) -> None:
    assert error_type(error) == label


class _Scripted:
    def __init__(self, *outcomes: Any) -> None:
        self._outcomes = list(outcomes)

    async def reconcile(self, request: Request) -> Result | None:
        outcome = self._outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome  # type: ignore[no-any-return]


@pytest.mark.anyio
async def test_each_reconcile_counts_once_under_its_result() -> None:
    labels = {"resource_type": "Widget", "namespace": "metered"}
    before = {
        r: _sample("dynamo_operator_reconcile_total", **labels, result=r)
        for r in ("success", "requeue", "error")
    }
    metered = MeteredReconciler(
        _Scripted(None, Result(requeue_after=5), Conflict(409, "Conflict", "", {})), "Widget"
    )
    await metered.reconcile(Request("metered", "a"))
    await metered.reconcile(Request("metered", "a"))
    with pytest.raises(Conflict):
        await metered.reconcile(Request("metered", "a"))
    for result in ("success", "requeue", "error"):
        after = _sample("dynamo_operator_reconcile_total", **labels, result=result)
        assert after == before[result] + 1
    assert _sample("dynamo_operator_reconcile_errors_total", **labels, error_type="conflict") >= 1


def _widget(namespace: str, name: str, state: str | None) -> dict[str, Any]:
    version = f"{name}-{state}"  # a new state is a new resourceVersion, as on the server
    obj: dict[str, Any] = {
        "metadata": {"namespace": namespace, "name": name, "resourceVersion": version}
    }
    if state:
        obj["status"] = {"state": state}
    return obj


def test_a_state_that_drops_to_zero_reads_zero() -> None:
    cache = Cache(api=None)
    informer = cache.register(WIDGET)
    counter = ResourceCounter(cache.reader, WIDGET)
    informer.replace(
        [_widget("a", "x", "pending"), _widget("a", "y", "pending"), _widget("b", "z", None)], "1"
    )
    counter.count()
    gauge = "dynamo_operator_resources_total"
    assert _sample(gauge, resource_type="Widget", namespace="a", status="pending") == 2
    assert _sample(gauge, resource_type="Widget", namespace="b", status="unknown") == 1

    informer.replace([_widget("a", "x", "successful")], "2")
    counter.count()
    assert _sample(gauge, resource_type="Widget", namespace="a", status="pending") == 0
    assert _sample(gauge, resource_type="Widget", namespace="a", status="successful") == 1
    assert _sample(gauge, resource_type="Widget", namespace="b", status="unknown") == 0
