"""`dynamo-operator run` as a process, started the way a user starts it, for end-to-end tests.

The process gets the test cluster's kubeconfig, free loopback ports for `/metrics` and
`/readyz`, and writes its JSON logs to a file the test can read. `stop()` sends SIGTERM (a clean
shutdown), `kill()` SIGKILL (a crash); both wait for the process to end.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from e2e.localcluster.ports import free_port
from e2e.support.metrics_scrape import Samples, fetch, parse, total, writes

STARTUP_TIMEOUT = 120.0


@dataclass
class OperatorProcess:
    process: subprocess.Popen[bytes]
    log_path: Path
    metrics_port: int
    health_port: int
    arguments: tuple[str, ...] = field(default=())

    def _get(self, port: int, path: str) -> tuple[int, str]:
        return fetch(f"http://127.0.0.1:{port}{path}", timeout=5)

    def readyz(self) -> tuple[int, str]:
        return self._get(self.health_port, "/readyz?verbose")

    def is_ready(self) -> bool:
        return self.readyz()[0] == 200

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"operator exited with {self.process.returncode}:\n{self.tail()}"
                )
            if self.is_ready():
                return
            time.sleep(0.2)
        raise TimeoutError(
            f"operator not ready after {timeout:.0f}s: {self.readyz()}\n{self.tail()}"
        )

    def metrics(self) -> Samples:
        """Every sample of `/metrics`."""
        status, text = self._get(self.metrics_port, "/metrics")
        if status != 200:
            raise RuntimeError(f"/metrics answered {status}: {text[:200]}")
        return parse(text)

    def metric_sum(self, name: str, **labels: str) -> float:
        """The sum of the samples of `name` whose labels include `labels`."""
        return total(self.metrics(), name, **labels)

    def writes(self) -> float:
        """Mutating API requests made so far (every verb but GET)."""
        return writes(self.metrics())

    def reconciles(self, controller: str) -> float:
        """Reconciles the controller has finished (`controller_runtime_reconcile_total`)."""
        return self.metric_sum("controller_runtime_reconcile_total", controller=controller)

    def wait_settled(self, quiet: float = 3.0, timeout: float = STARTUP_TIMEOUT) -> float:
        """Wait until nothing is queued or being reconciled and neither the reconcile count nor
        `writes()` has moved for `quiet` seconds; return `writes()`. A way to let the operator
        finish what it was doing, not a measurement: tests assert counts, never durations."""
        deadline = time.monotonic() + timeout
        last: tuple[float, float] | None = None
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            busy = self.metric_sum("workqueue_depth") + self.metric_sum(
                "controller_runtime_active_workers"
            )
            now = (self.metric_sum("controller_runtime_reconcile_total"), self.writes())
            if busy or now != last:
                last, quiet_since = now, time.monotonic()
            elif time.monotonic() - quiet_since >= quiet:
                return now[1]
            time.sleep(0.25)
        raise TimeoutError(f"operator still busy after {timeout:.0f}s:\n{self.tail()}")

    def logs(self) -> list[dict[str, Any]]:
        records = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                record = json.loads(line)
                if isinstance(record, dict):
                    records.append(record)
        return records

    def logged_writes(self) -> list[str]:
        """The writes the operator logged at debug level (run it with LOG_LEVEL=debug): what it
        changed and the first field that differed, to explain a write a test did not expect."""
        return [
            f"{r['msg']} {r.get('kind')} {r.get('namespace')}/{r.get('name')}: {r.get('field')}"
            for r in self.logs()
            if r.get("level") == "debug" and "field" in r
        ]

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self, timeout: float = 60.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(30)


def start_operator(
    kubeconfig: Path,
    log_dir: Path,
    *arguments: str,
    env: dict[str, str] | None = None,
    name: str = "operator",
) -> OperatorProcess:
    """Start `dynamo-operator run` with `arguments`; does not wait for readiness."""
    metrics_port, health_port = free_port(), free_port()
    log_path = log_dir / f"{name}-{time.monotonic_ns()}.log"
    command = [
        sys.executable,
        "-m",
        "manager.app.cli",
        "run",
        f"--metrics-bind-address=127.0.0.1:{metrics_port}",
        f"--health-probe-bind-address=127.0.0.1:{health_port}",
        *arguments,
    ]
    environment = {**os.environ, "KUBECONFIG": str(kubeconfig), **(env or {})}
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            command,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=environment,
            cwd=Path(__file__).resolve().parents[2],
        )
    return OperatorProcess(process, log_path, metrics_port, health_port, tuple(arguments))


@contextlib.contextmanager
def running_operator(
    kubeconfig: Path, log_dir: Path, *arguments: str, wait_ready: bool = True, **kwargs: Any
) -> Iterator[OperatorProcess]:
    operator = start_operator(kubeconfig, log_dir, *arguments, **kwargs)
    try:
        if wait_ready:
            operator.wait_ready()
        yield operator
    finally:
        try:
            operator.stop(timeout=60)
        except subprocess.TimeoutExpired:
            operator.kill()
