from __future__ import annotations

from typing import Any

import pytest

from dynamo_operator.api import BackendFramework
from dynamo_operator.backend_inference import effective_backend, launched_backends, worker_backends
from dynamo_operator.builders import find_launch


def shell(script: str) -> dict[str, Any]:
    return {"command": ["/bin/sh", "-c"], "args": [script]}


@pytest.mark.parametrize(
    ("container", "backends"),
    [
        ({"command": ["python3", "-m", "dynamo.vllm", "--model", "m"]}, {"vllm"}),
        ({"command": ["python3.11"], "args": ["-m", "dynamo.sglang"]}, {"sglang"}),
        (shell("echo start && python -m dynamo.trtllm.worker | tee /tmp/log"), {"trtllm"}),
        (shell("python -m dynamo.vllm.worker && python -m dynamo.sglang"), {"vllm", "sglang"}),
        (shell("python3 -m dynamo.vllm; python3 -m dynamo.trtllm"), {"vllm", "trtllm"}),
        # The interpreter and the module must be in the same command: no pipe, & or ; between.
        (shell("python3 fetch.py && launcher -m dynamo.vllm"), set()),
        (shell("python3 fetch.py | runner -m dynamo.sglang"), set()),
        ({"command": ["python3", "-m", "dynamo.vllmx"]}, set()),
        ({"command": ["python3", "-m", "dynamo.frontend"]}, set()),
        (None, set()),
    ],
)
def test_launched_backends_are_read_per_command(
    container: dict[str, Any] | None, backends: set[str]
) -> None:
    assert launched_backends(container) == {BackendFramework(b) for b in backends}


def test_the_declared_backend_wins_else_the_one_launched() -> None:
    vllm = {"command": ["python3", "-m", "dynamo.vllm"]}
    assert effective_backend("sglang", vllm) == BackendFramework.SGLANG
    assert effective_backend(None, vllm) == BackendFramework.VLLM
    assert (
        effective_backend(None, shell("python -m dynamo.vllm && python -m dynamo.sglang")) is None
    )


def test_worker_backends_reads_workers_that_launch_exactly_one() -> None:
    vllm = {"command": ["python3", "-m", "dynamo.vllm"]}
    both = shell("python -m dynamo.vllm && python -m dynamo.sglang")
    services = [
        ("Decode", "decode", vllm),
        ("Prefill", "prefill", {"command": ["python3", "-m", "dynamo.sglang"]}),
        ("Frontend", "frontend", vllm),  # not a worker
        ("Both", "worker", both),
        ("Nothing", "worker", None),
    ]
    assert worker_backends(services) == {
        "Decode": BackendFramework.VLLM,
        "Prefill": BackendFramework.SGLANG,
    }


@pytest.mark.parametrize(
    "script",
    [
        "python3 -m dynamo.vllm --model m",
        "exec python3 -u -m dynamo.sglang --tp 2 | tee /tmp/log",
        "env A=1 /usr/bin/python3.11 -m dynamo.trtllm --engine e && ls -al",
        "echo start; nohup python -m dynamo.vllm.worker > /tmp/out 2>&1 &",
        "python3 \\\n  -m dynamo.sglang \\\n  --model m",
    ],
)
def test_an_inferred_backend_has_a_launch_the_multinode_flags_can_go_on(script: str) -> None:
    """What the builders wire (``find_launch``) and what decides the backend agree: a backend
    read off a command is launched by a command the flags can be put on."""
    container = shell(script)
    [backend] = launched_backends(container)

    assert find_launch(container, backend).commands
