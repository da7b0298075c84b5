from __future__ import annotations

import pytest

from dynamo_operator.builders.service import build_service

from .factories import component, context


@pytest.mark.parametrize(
    ("component_type", "ports"),
    [
        ("frontend", [("http", 8000)]),
        ("worker", [("system", 9090)]),
        ("prefill", [("system", 9090)]),
        ("decode", [("system", 9090)]),
        # Its Prometheus metrics and the runtime's system server (upstream's planner ports).
        ("planner", [("metrics", 9085), ("system", 9090)]),
    ],
)
def test_default_ports_per_component_type(
    component_type: str, ports: list[tuple[str, int]]
) -> None:
    service = build_service(component(componentType=component_type), context())
    assert service is not None
    assert [(p["name"], p["port"], p["targetPort"]) for p in service["spec"]["ports"]] == [
        (name, number, name) for name, number in ports
    ]


def test_component_without_ports_gets_no_service() -> None:
    assert build_service(component(componentType="main"), context()) is None


def test_named_user_ports_are_added_and_unnamed_ones_are_not() -> None:
    service = build_service(
        component(
            componentType="worker",
            extraPodSpec={
                "mainContainer": {
                    "ports": [{"name": "kv", "containerPort": 5557}, {"containerPort": 1234}]
                }
            },
        ),
        context(),
    )
    assert service is not None
    assert [p["name"] for p in service["spec"]["ports"]] == ["system", "kv"]


def test_selector_is_unique_to_the_component_not_its_type() -> None:
    first = build_service(component("g-prefill-a", componentType="prefill"), context())
    second = build_service(component("g-prefill-b", componentType="prefill"), context())
    assert first is not None
    assert second is not None
    assert first["spec"]["selector"] == {"nvidia.com/selector": "g-prefill-a"}
    assert second["spec"]["selector"] == {"nvidia.com/selector": "g-prefill-b"}


def test_multinode_service_routes_to_leaders_only() -> None:
    service = build_service(
        component(componentType="worker", backendFramework="vllm", multinode={"nodeCount": 2}),
        context(),
    )
    assert service is not None
    assert service["spec"]["selector"] == {"nvidia.com/selector": "g-worker", "role": "leader"}
