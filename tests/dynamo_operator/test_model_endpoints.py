from __future__ import annotations

from typing import Any

from dynamo_operator.model_endpoints import (
    WorkerEndpoint,
    endpoint_service_names,
    find_worker_endpoints,
)


def endpoint(ip: str, pod: str | None, *, ready: bool | None = True, kind: str = "Pod") -> Any:
    entry: dict[str, Any] = {"addresses": [ip]}
    if ready is not None:
        entry["conditions"] = {"ready": ready}
    if pod is not None:
        entry["targetRef"] = {"kind": kind, "name": pod, "uid": f"uid-{pod}"}
    return entry


def endpoint_slice(
    *endpoints: Any,
    service: str = "dynamo-model-abc",
    ports: Any = None,
    address_type: str = "IPv4",
) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"kubernetes.io/service-name": service}},
        "addressType": address_type,
        "endpoints": list(endpoints),
        "ports": [{"name": "system", "port": 9090}] if ports is None else ports,
    }


def test_ready_pod_endpoints_are_workers_at_the_system_port() -> None:
    slices = [
        endpoint_slice(
            endpoint("10.0.0.2", "b"),
            endpoint("10.0.0.1", "a", ready=None),  # unknown readiness reads as ready
            endpoint("10.0.0.3", "c", ready=False),
            endpoint("10.0.0.4", None),  # no targetRef: not a pod
            endpoint("10.0.0.5", "n", kind="Node"),
        )
    ]

    assert find_worker_endpoints(slices) == [
        WorkerEndpoint("http://10.0.0.1:9090", "a", "uid-a"),
        WorkerEndpoint("http://10.0.0.2:9090", "b", "uid-b"),
    ]


def test_the_port_named_system_wins_and_9090_is_the_default() -> None:
    named = endpoint_slice(
        endpoint("10.0.0.1", "a"),
        ports=[{"name": "http", "port": 8000}, {"name": "system", "port": 9345}],
    )
    unnamed = endpoint_slice(endpoint("10.0.0.2", "b"), ports=[])

    assert [e.address for e in find_worker_endpoints([named, unnamed])] == [
        "http://10.0.0.1:9345",
        "http://10.0.0.2:9090",
    ]


def test_an_endpoint_in_several_slices_is_one_worker_and_ipv6_is_bracketed() -> None:
    slices = [
        endpoint_slice(endpoint("10.0.0.1", "a")),
        endpoint_slice(endpoint("10.0.0.1", "a"), service="other"),
        endpoint_slice(endpoint("fd00::7", "v6"), address_type="IPv6"),
        endpoint_slice(endpoint("worker.example", "f"), address_type="FQDN"),
    ]

    assert [e.address for e in find_worker_endpoints(slices)] == [
        "http://10.0.0.1:9090",
        "http://[fd00::7]:9090",
    ]
    assert endpoint_service_names(slices) == ["dynamo-model-abc", "other"]


def test_a_worker_is_identified_by_its_pod_and_address() -> None:
    first = WorkerEndpoint("http://10.0.0.1:9090", "a", "uid-1")
    replaced = WorkerEndpoint("http://10.0.0.1:9090", "a", "uid-2")

    assert first.key != replaced.key
    assert WorkerEndpoint("http://10.0.0.1:9090", "a").key == "a@http://10.0.0.1:9090"
