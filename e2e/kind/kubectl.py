"""kubectl and port-forwards against the kind cluster of ``DYNAMO_E2E_KUBECONFIG``."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from e2e.localcluster import ensure_binaries

Run = subprocess.CompletedProcess[str]


def kubectl(*arguments: str, stdin: str | None = None, check: bool = True) -> Run:
    binary = ensure_binaries(show_progress=False).kube("kubectl")
    kubeconfig = os.environ["DYNAMO_E2E_KUBECONFIG"]
    done = subprocess.run(
        [str(binary), f"--kubeconfig={kubeconfig}", *arguments],
        input=stdin, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if check and done.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(arguments)}: {done.stderr}")
    return done


def get_json(*arguments: str) -> Any:
    return json.loads(kubectl("get", "-o", "json", *arguments).stdout)


@contextmanager
def port_forward(namespace: str, target: str, port: int) -> Iterator[int]:
    """`kubectl port-forward` of `target` (e.g. svc/name) `port` to a free local port."""
    binary = ensure_binaries(show_progress=False).kube("kubectl")
    process = subprocess.Popen(
        [str(binary), f"--kubeconfig={os.environ['DYNAMO_E2E_KUBECONFIG']}", "-n", namespace,
         "port-forward", "--address=127.0.0.1", target, f":{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        assert process.stderr is not None
        first = process.stdout.readline()  # "Forwarding from 127.0.0.1:NNNNN -> port"
        found = re.search(r"127\.0\.0\.1:(\d+)", first)
        if not found:
            raise AssertionError(f"port-forward {target}: {first}{process.stderr.read()}")
        yield int(found.group(1))
    finally:
        process.terminate()
        process.wait(timeout=10)
