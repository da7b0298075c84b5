from __future__ import annotations

import pytest

from dynamo_operator.builders.deployment import WORKER_MIN_READY_SECONDS, build_deployment

from .factories import component, context


@pytest.mark.parametrize("component_type", ["worker", "prefill", "decode"])
def test_a_worker_like_replacement_serves_a_while_before_an_old_pod_goes(
    component_type: str,
) -> None:
    deployment = build_deployment(component(componentType=component_type), context())

    assert deployment["spec"]["minReadySeconds"] == WORKER_MIN_READY_SECONDS > 0


@pytest.mark.parametrize("component_type", ["frontend", "planner"])
def test_other_components_roll_out_as_soon_as_ready(component_type: str) -> None:
    deployment = build_deployment(component(componentType=component_type), context())

    assert "minReadySeconds" not in deployment["spec"]
