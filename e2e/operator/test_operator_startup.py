"""`dynamo-operator run` when it cannot work yet: an unreachable API server, no credentials, a
port already taken. Each gives one clear log line (never a traceback loop), a non-ready
`/readyz` while it waits, and a clean stop on SIGTERM."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from e2e.localcluster.ports import free_port
from e2e.support.operator_process import start_operator

pytestmark = pytest.mark.e2e


def _errors(log: str) -> list[dict[str, object]]:
    records = []
    for line in log.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("level") == "error":
            records.append(record)
    return records


def _wait_for(predicate: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise TimeoutError("condition not reached")


def test_an_unreachable_api_server_is_one_log_line_and_not_ready(
    kubeconfig: Path, tmp_path: Path
) -> None:
    config = yaml.safe_load(kubeconfig.read_text())
    for cluster in config["clusters"]:
        cluster["cluster"]["server"] = f"https://127.0.0.1:{free_port()}"  # nothing listens
    unreachable = tmp_path / "unreachable.kubeconfig"
    unreachable.write_text(yaml.safe_dump(config))

    operator = start_operator(unreachable, tmp_path)
    try:
        _wait_for(lambda: "waiting for the API server" in operator.log_path.read_text())
        time.sleep(5)  # several retries happen meanwhile
        status, body = operator.readyz()
        assert status == 500
        assert "caches-synced failed" in body
        assert operator.process.poll() is None  # waiting, not crashing
        log = operator.log_path.read_text()
        assert [e["msg"] for e in _errors(log)] == ["waiting for the API server"]
        assert "Traceback" not in log
    finally:
        assert operator.stop(timeout=30) == 0  # SIGTERM is honoured while still starting


def test_no_credentials_is_one_clear_line_and_exit_1(tmp_path: Path) -> None:
    empty = tmp_path / "empty.kubeconfig"
    empty.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "manager.app.cli",
            "run",
            f"--health-probe-bind-address=127.0.0.1:{free_port()}",
            f"--metrics-bind-address=127.0.0.1:{free_port()}",
        ],
        env={"KUBECONFIG": str(empty), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 1
    assert [e["msg"] for e in _errors(done.stdout)] == ["no Kubernetes credentials"]
    assert "Traceback" not in done.stdout + done.stderr


def test_a_port_already_taken_is_one_clear_line_and_exit_1(
    kubeconfig: Path, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        operator = start_operator(kubeconfig, tmp_path, f"--metrics-bind-address=127.0.0.1:{port}")
        assert operator.process.wait(timeout=60) == 1
    log = operator.log_path.read_text()
    [error] = _errors(log)
    assert error["msg"] == "cannot listen"
    assert str(port) in str(error["error"])
    assert "Traceback" not in log
