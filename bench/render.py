"""Render throughput and memory: how many full graph renders per second one core sustains.

Renders (``dynamo_operator.render.render_objects``: DGD -> DCDs -> Deployments/LWS, Services...)
a 4-service disaggregated graph and a 25-service graph that includes multinode workers, each for a
fixed wall-clock budget, then measures peak traced memory of one render and the process's max RSS.
The last line is ``key=value`` pairs for scripts.

    python -m bench.render [--seconds 3]
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc
from typing import Any

from dynamo_operator.render import render_objects
from dynamo_operator.settings import OperatorSettings

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.0"


def _service(component_type: str, *, gpus: int = 0, node_count: int = 1) -> dict[str, Any]:
    service: dict[str, Any] = {
        "componentType": component_type,
        "replicas": 2,
        "envs": [{"name": "MODEL", "value": "Qwen/Qwen3-0.6B"}],
        "extraPodSpec": {
            "mainContainer": {
                "image": IMAGE,
                "command": ["python3", "-m", f"dynamo.{component_type}"],
                "args": ["--model", "Qwen/Qwen3-0.6B", "--tensor-parallel-size", "8"],
            }
        },
    }
    if gpus:
        service["resources"] = {"limits": {"gpu": str(gpus)}}
    if node_count > 1:
        service["multinode"] = {"nodeCount": node_count}
    return service


def graph(name: str, services: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": name, "namespace": "bench"},
        "spec": {
            "backendFramework": "vllm",
            "envs": [{"name": "HF_HOME", "value": "/models"}],
            "services": services,
        },
    }


def disaggregated_graph() -> dict[str, Any]:
    return graph(
        "disagg",
        {
            "Frontend": _service("frontend"),
            "Planner": _service("planner"),
            "Prefill": _service("prefill", gpus=8),
            "Decode": _service("decode", gpus=8),
        },
    )


def large_graph() -> dict[str, Any]:
    services = {"Frontend": _service("frontend"), "Planner": _service("planner")}
    for index in range(15):
        services[f"Worker{index}"] = _service("worker", gpus=8)
    for index in range(8):
        services[f"Multinode{index}"] = _service("decode", gpus=4, node_count=2)
    return graph("large", services)


def renders_per_second(
    document: dict[str, Any], settings: OperatorSettings, seconds: float
) -> tuple[float, float]:
    """(renders per wall-clock second, renders per CPU second of this process).

    Both, because on a shared machine the wall-clock figure also measures the neighbours; the CPU
    figure is what one dedicated core would sustain (rendering is single-threaded).
    """
    documents = [document]
    render_objects(documents, settings)  # warm-up: imports, pydantic validators
    count = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(10):
            render_objects(documents, settings)
        count += 10
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return count / wall, count / cpu


def peak_traced_bytes(document: dict[str, Any], settings: OperatorSettings) -> int:
    tracemalloc.start()
    render_objects([document], settings)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="budget per graph")
    args = parser.parse_args()
    settings = OperatorSettings(nats_addr="nats://nats:4222", ingress_controller_class_name="nginx")
    small, large = disaggregated_graph(), large_graph()
    small_wall, small_cpu = renders_per_second(small, settings, args.seconds)
    large_wall, large_cpu = renders_per_second(large, settings, args.seconds)
    results = {
        "disagg4_renders_per_s": small_wall,
        "disagg4_renders_per_cpu_s": small_cpu,
        "graph25_renders_per_s": large_wall,
        "graph25_renders_per_cpu_s": large_cpu,
        "disagg4_objects": len(render_objects([small], settings).objects),
        "graph25_objects": len(render_objects([large], settings).objects),
        "disagg4_peak_kib": peak_traced_bytes(small, settings) / 1024,
        "graph25_peak_kib": peak_traced_bytes(large, settings) / 1024,
        "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    for key, value in results.items():
        print(f"{key:26} {value:10.1f}" if isinstance(value, float) else f"{key:26} {value:10d}")
    print(
        " ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in results.items())
    )


if __name__ == "__main__":
    main()
