"""Admission throughput and latency of the webhook server over TLS on loopback.

The server runs as `dynamo-operator webhook-server` in its own process (as in production: the
apiserver is another process); the load generator holds N keep-alive TLS connections, each sending
one CREATE review of a realistic 4-service DynamoGraphDeployment at a time, and measures every
round trip. The last line is ``key=value`` pairs.

    python -m bench.webhook [--seconds 5] [--clients 1,16,64]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from e2e.support.admission_reviews import admission_review

PATH = "/validate-nvidia-com-v1alpha1-dynamographdeployment"
ALLOWED = re.compile(rb'"allowed":\s*true')


def worker(name: str, role: str, gpus: str) -> dict[str, object]:
    return {
        "componentType": "worker",
        "subComponentType": role,
        "replicas": 2,
        "resources": {"requests": {"cpu": "8", "memory": "64Gi"}, "limits": {"gpu": gpus}},
        "envs": [{"name": "HF_HOME", "value": "/models/hf"}],
        "envFromSecret": "hf-token-secret",
        "volumeMounts": [{"name": "model-cache", "mountPoint": "/models"}],
        "sharedMemory": {"size": "16Gi"},
        "extraPodSpec": {
            "mainContainer": {
                "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0",
                "workingDir": "/workspace",
                "command": ["python3", "-m", "dynamo.vllm"],
                "args": ["--model", "Qwen/Qwen3-32B", f"--is-{role}-worker", "--tp", gpus],
            },
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
        },
    }


def realistic_graph() -> dict[str, object]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "qwen3-disagg", "namespace": "inference", "uid": "1234"},
        "spec": {
            "backendFramework": "vllm",
            "pvcs": [
                {
                    "name": "model-cache",
                    "create": True,
                    "storageClass": "standard",
                    "size": "500Gi",
                    "volumeAccessMode": "ReadWriteMany",
                }
            ],
            "envs": [{"name": "DYN_LOG", "value": "info"}],
            "services": {
                "Frontend": {
                    "componentType": "frontend",
                    "replicas": 2,
                    "resources": {"requests": {"cpu": "2", "memory": "4Gi"}},
                    "extraPodSpec": {
                        "mainContainer": {
                            "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0",
                            "command": ["python3", "-m", "dynamo.frontend"],
                        }
                    },
                },
                "Planner": {
                    "componentType": "planner",
                    "replicas": 1,
                    "extraPodSpec": {
                        "mainContainer": {
                            "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0",
                            "command": ["python3", "-m", "planner_sla"],
                        }
                    },
                },
                "VllmPrefillWorker": worker("VllmPrefillWorker", "prefill", "2"),
                "VllmDecodeWorker": worker("VllmDecodeWorker", "decode", "4"),
            },
        },
    }


def request_bytes() -> bytes:
    review = admission_review(
        realistic_graph(), uid="bench", name="qwen3-disagg", namespace="inference"
    )
    body = json.dumps(review).encode()
    head = (
        f"POST {PATH}?timeout=10s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nAccept: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def client_loop(
    port: int, context: ssl.SSLContext, payload: bytes, deadline: float, latencies: list[float]
) -> int:
    """One keep-alive connection, one request at a time; returns the number of denials seen."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    denied = 0
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        writer.write(payload)
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length: (\d+)", head)[1])  # type: ignore[index]
        body = await reader.readexactly(length)
        latencies.append(time.perf_counter() - started)
        if ALLOWED.search(body) is None:
            denied += 1
    writer.close()
    return denied


async def measure(
    port: int, context: ssl.SSLContext, clients: int, seconds: float
) -> dict[str, float]:
    payload = request_bytes()
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    denials = await asyncio.gather(
        *(client_loop(port, context, payload, deadline, latencies) for _ in range(clients))
    )
    elapsed = time.perf_counter() - started
    if sum(denials):
        raise SystemExit(f"{sum(denials)} reviews of the valid graph were denied")
    cuts = statistics.quantiles(latencies, n=100)
    return {
        "rps": len(latencies) / elapsed,
        "p50_ms": cuts[49] * 1000,
        "p99_ms": cuts[98] * 1000,
    }


def start_server(cert_dir: Path) -> tuple[subprocess.Popen[str], int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    command = [
        sys.executable, "-c", "import sys; from manager.app.cli import main; sys.exit(main())",
        "webhook-server", "--host", "127.0.0.1", "--port", str(port), "--cert-dir", str(cert_dir),
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if "serving https://" in line:
            return process, port
    raise SystemExit("webhook-server exited before serving")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", default="1,16,64")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cert_dir:
        process, port = start_server(Path(cert_dir))
        try:
            context = ssl.create_default_context(cafile=str(Path(cert_dir) / "ca.crt"))
            figures: dict[str, float] = {}
            for clients in (int(n) for n in args.clients.split(",")):
                asyncio.run(measure(port, context, clients, 1.0))  # warm-up
                result = asyncio.run(measure(port, context, clients, args.seconds))
                print(
                    f"{clients:>3} clients: {result['rps']:8.0f} admissions/s  "
                    f"p50 {result['p50_ms']:6.2f} ms  p99 {result['p99_ms']:6.2f} ms"
                )
                figures.update({f"c{clients}_{key}": value for key, value in result.items()})
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(" ".join(f"{key}={value:.2f}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
