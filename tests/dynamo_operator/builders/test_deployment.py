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


def test_a_recreate_worker_frees_its_gpu_before_the_new_pod_needs_it() -> None:
    # upstream Test_generateDeployment_Strategy, "deployment-strategy annotation with Recreate"
    worker = component(
        componentType="decode",
        annotations={"nvidia.com/deployment-strategy": "Recreate"},
        resources={"limits": {"gpu": "1"}},
    )

    assert build_deployment(worker, context())["spec"]["strategy"] == {"type": "Recreate"}


def test_extra_pod_metadata_annotations_tune_the_rollout_over_the_services() -> None:
    worker = component(
        componentType="worker",
        annotations={
            "nvidia.com/deployment-rolling-update-max-surge": "50%",
            "nvidia.com/deployment-rolling-update-max-unavailable": "10%",
        },
        extraPodMetadata={"annotations": {"nvidia.com/deployment-rolling-update-max-surge": "1"}},
    )

    assert build_deployment(worker, context())["spec"]["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "10%"},
    }


def test_without_annotations_the_strategy_is_written_out_as_upstream_does() -> None:
    strategy = build_deployment(component(componentType="frontend"), context())["spec"]["strategy"]

    assert strategy == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
    }
