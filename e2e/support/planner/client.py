"""Dynamo's planner client in a virtual environment of its own, cached by version.

``ai-dynamo==1.6.1`` (the version of our Dynamo test image, installed without its dependencies as
the image does) with the runtime it imports for its logging and the official ``kubernetes``
client it talks through at the version it pins, installed from PyPI once into
``$DYNAMO_CACHE/planner/ai-dynamo-1.6.1-<key>`` (about 40 s cold), then reused.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

AI_DYNAMO_VERSION = "1.6.1"
REQUIREMENTS = (
    f"ai-dynamo-runtime=={AI_DYNAMO_VERSION}",
    "kubernetes>=32.0.1,<33.0.0",  # ai-dynamo's own pin: its JSON patch call needs that client
    "pydantic>=2",
)
DRIVER = Path(__file__).with_name("driver.py")


def _cache_root() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "dynamo-operator"
    return Path(os.environ.get("DYNAMO_CACHE", default))


def planner_python() -> Path:
    """The interpreter of the planner's environment, created when missing."""
    key = hashlib.sha256("\n".join(REQUIREMENTS).encode()).hexdigest()[:12]
    venv = _cache_root() / "planner" / f"ai-dynamo-{AI_DYNAMO_VERSION}-{key}"
    python = venv / "bin" / "python"
    done = venv / ".installed"
    if done.exists():
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--only-binary=:all:"]
    subprocess.run([*pip, *REQUIREMENTS], check=True)
    subprocess.run([*pip, "--no-deps", f"ai-dynamo=={AI_DYNAMO_VERSION}"], check=True)
    done.touch()
    return python


class PlannerClient:
    """Calls of the planner's ``KubernetesAPI`` in ``namespace``, each one process."""

    def __init__(self, kubeconfig: Path, namespace: str) -> None:
        self.kubeconfig = kubeconfig
        self.namespace = namespace
        self.python = planner_python()

    def call(self, command: str, graph: str, *arguments: str | int) -> dict[str, Any]:
        env = {**os.environ, "KUBECONFIG": str(self.kubeconfig)}
        done = subprocess.run(
            [str(self.python), str(DRIVER), self.namespace, command, graph, *map(str, arguments)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise AssertionError(
                f"planner {command} {graph} {arguments} failed ({done.returncode}):\n"
                f"{done.stderr[-3000:]}"
            )
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result

    def scale(self, graph: str, component: str, replicas: int) -> dict[str, Any]:
        return self.call("scale", graph, component, replicas)

    def status(self, graph: str, *components: str) -> dict[str, Any]:
        return self.call("status", graph, *components)

    def wait_ready(self, graph: str) -> dict[str, Any]:
        return self.call("wait", graph)
