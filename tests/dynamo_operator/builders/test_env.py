from __future__ import annotations

import pytest

from dynamo_operator.builders.env import component_type_env, standard_env
from dynamo_operator.settings import DiscoveryBackend, OperatorSettings


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


def test_a_planner_is_told_its_metrics_and_system_ports() -> None:
    # upstream component_planner_test.go TestPlannerDefaults_GetBaseContainer
    assert values("planner") == {
        "DYN_COMPONENT": "planner",
        "PLANNER_PROMETHEUS_PORT": "9085",
        "DYN_SYSTEM_PORT": "9090",
    }


def discovery_env(backend: DiscoveryBackend) -> dict[str, str | None]:
    env = standard_env(OperatorSettings(), backend)
    return {entry["name"]: entry.get("value") for entry in env}


def test_kubernetes_discovery_is_named_and_etcd_is_the_runtime_default() -> None:
    # upstream graph_test.go TestGenerateBasePodSpec_DiscoverBackend: etcd sets no env var.
    assert discovery_env("kubernetes")["DYN_DISCOVERY_BACKEND"] == "kubernetes"
    assert "DYN_DISCOVERY_BACKEND" not in discovery_env("etcd")
    assert {"POD_NAME", "POD_NAMESPACE", "POD_UID"} <= set(discovery_env("etcd"))
