"""`dynamo-operator webhook-server` as a user runs it: a process, a URL, SIGTERM."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.webhooks.reviews import DGD_PATH, make_review
from tests.webhooks.tls_client import TLSConnection

pytestmark = pytest.mark.anyio


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_serves_with_generated_certificate_and_stops_on_sigterm(tmp_path: Path) -> None:
    cert_dir = tmp_path / "certs"
    command = [
        sys.executable, "-c", "import sys; from manager.cli import main; sys.exit(main())",
        "webhook-server", "--host", "127.0.0.1", "--port", str(free_port()),
        "--cert-dir", str(cert_dir),
    ]  # fmt: skip
    process = await anyio.open_process(command, stderr=subprocess.STDOUT)
    try:
        assert process.stdout is not None
        output = b""
        with anyio.fail_after(60):
            while b"serving https://" not in output:
                output += await process.stdout.receive()
        match = re.search(rb"serving https://127\.0\.0\.1:(\d+)", output)
        assert match is not None, output
        assert {path.name for path in cert_dir.iterdir()} >= {"tls.crt", "tls.key", "ca.crt"}

        connection = await TLSConnection.open(int(match[1]), (cert_dir / "ca.crt").read_bytes())
        review = make_review({"kind": "DynamoGraphDeployment", "spec": {}}, uid="cli")
        status, body = await connection.post(DGD_PATH, review)
        await connection.aclose()
        assert status == 200
        answer = json.loads(body)["response"]
        assert answer["uid"] == "cli"
        assert answer["allowed"] is False
        assert "spec.services" in answer["status"]["message"]

        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(30):
            assert await process.wait() == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
