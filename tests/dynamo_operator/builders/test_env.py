from __future__ import annotations

import pytest

from dynamo_operator.builders.env import component_type_env


def values(component_type: str) -> dict[str, str]:
    return {entry["name"]: entry["value"] for entry in component_type_env(component_type)}


@pytest.mark.parametrize("component_type", ["frontend", "worker", "planner", "main", "epp"])
def test_every_typed_component_is_told_its_type(component_type: str) -> None:
    # upstream component_common.go getCommonContainer; component_frontend_test.go
    # TestFrontendDefaults_GetBaseContainer expects DYN_COMPONENT=frontend
    assert values(component_type)["DYN_COMPONENT"] == component_type


def test_a_component_without_a_type_gets_no_empty_dyn_component() -> None:
    assert "DYN_COMPONENT" not in values("")


@pytest.mark.parametrize("component_type", ["worker", "prefill", "decode"])
def test_workers_turn_the_canary_health_check_off(component_type: str) -> None:
    # upstream component_worker_test.go TestWorkerDefaultsCanaryHealthCheckVersionGate,
    # "unknown legacy runtime": DYN_HEALTH_CHECK_ENABLED=false
    assert values(component_type)["DYN_HEALTH_CHECK_ENABLED"] == "false"


@pytest.mark.parametrize("component_type", ["frontend", "planner", "main"])
def test_only_workers_carry_the_health_check_switch(component_type: str) -> None:
    assert "DYN_HEALTH_CHECK_ENABLED" not in values(component_type)
