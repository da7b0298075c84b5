"""The server over real TLS sockets: readiness waits for a certificate, rotation is hot."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from e2e.localcluster.ports import free_port
from e2e.support.admission_reviews import admission_review
from manager.runtime.tls.directory import DirectoryCertificates
from manager.runtime.tls.key_pair import KeyPair, generate_ca, generate_serving_pair
from tests.webhooks.reviews import DGD_PATH, ScriptedValidator
from tests.webhooks.tls_client import TLSConnection
from webhooks.server import WebhookServer

pytestmark = pytest.mark.anyio

POLL = timedelta(milliseconds=20)
OBJECT = {"kind": "DynamoGraphDeployment", "metadata": {"name": "demo"}}


def write_pair(directory: Path, pair: KeyPair) -> None:
    # Like a kubelet-updated Secret volume: the new content appears atomically.
    for name, content in (("tls.crt", pair.cert_pem), ("tls.key", pair.key_pem)):
        staging = directory / f".{name}.new"
        staging.write_bytes(content)
        staging.replace(directory / name)


def der(pair: KeyPair) -> bytes:
    return pair.certificate.public_bytes(serialization.Encoding.DER)


@pytest.fixture
def ca() -> KeyPair:
    return generate_ca(datetime.now(UTC), timedelta(days=30))


def serving(ca: KeyPair) -> KeyPair:
    return generate_serving_pair(
        ca,
        datetime.now(UTC),
        timedelta(days=30),
        dns_names=["localhost"],
        ip_addresses=["127.0.0.1"],
    )


@pytest.fixture
def port() -> int:
    return free_port()


@pytest.fixture
async def running(tmp_path: Path, port: int) -> AsyncIterator[WebhookServer]:
    server = WebhookServer(
        certificates=DirectoryCertificates(tmp_path, poll_interval=POLL),
        validator=ScriptedValidator(),
        host="127.0.0.1",
        port=port,
    )
    async with anyio.create_task_group() as task_group:
        task_group.start_soon(server.run)
        yield server
        task_group.cancel_scope.cancel()


async def wait_until_ready(server: WebhookServer) -> None:
    with anyio.fail_after(10):
        while not server.ready:  # noqa: ASYNC110 - readiness is a property, as probes see it
            await anyio.sleep(0.01)


async def test_no_connection_is_accepted_before_a_certificate_exists(
    running: WebhookServer, tmp_path: Path, ca: KeyPair, port: int
) -> None:
    await anyio.sleep(5 * POLL.total_seconds())
    assert not running.ready
    with pytest.raises(OSError, match=r"[Cc]onnect"):
        await TLSConnection.open(port, ca.cert_pem)

    write_pair(tmp_path, serving(ca))
    await wait_until_ready(running)
    connection = await TLSConnection.open(running.port, ca.cert_pem)
    status, body = await connection.post(DGD_PATH, admission_review(OBJECT, uid="u1"))
    await connection.aclose()
    assert status == 200
    assert json.loads(body)["response"] == {"uid": "u1", "allowed": True}


async def test_rotation_reaches_new_handshakes_and_spares_open_connections(
    running: WebhookServer, tmp_path: Path, ca: KeyPair
) -> None:
    first, second = serving(ca), serving(ca)
    write_pair(tmp_path, first)
    await wait_until_ready(running)
    kept_open = await TLSConnection.open(running.port, ca.cert_pem)
    assert (await kept_open.post(DGD_PATH, admission_review(OBJECT)))[0] == 200
    assert kept_open.peer_certificate == der(first)

    write_pair(tmp_path, second)
    with anyio.fail_after(10):
        while True:
            probe = await TLSConnection.open(running.port, ca.cert_pem)
            presented = probe.peer_certificate
            await probe.aclose()
            if presented == der(second):
                break
            assert presented == der(first)
            await anyio.sleep(POLL.total_seconds())

    status, body = await kept_open.post(DGD_PATH, admission_review(OBJECT, uid="after"))
    assert status == 200
    assert json.loads(body)["response"]["uid"] == "after"
    assert kept_open.peer_certificate == der(first)
    await kept_open.aclose()


async def test_broken_files_keep_the_previous_certificate(
    running: WebhookServer, tmp_path: Path, ca: KeyPair
) -> None:
    good = serving(ca)
    write_pair(tmp_path, good)
    await wait_until_ready(running)
    (tmp_path / "tls.key").write_bytes(serving(ca).key_pem)  # a key of another certificate
    await anyio.sleep(5 * POLL.total_seconds())
    connection = await TLSConnection.open(running.port, ca.cert_pem)
    assert connection.peer_certificate == der(good)
    assert (await connection.post(DGD_PATH, admission_review(OBJECT)))[0] == 200
    await connection.aclose()


async def test_server_certificate_is_verified_by_its_ca_for_127_0_0_1(
    running: WebhookServer, tmp_path: Path, ca: KeyPair
) -> None:
    write_pair(tmp_path, serving(ca))
    await wait_until_ready(running)
    stranger = generate_ca(datetime.now(UTC), timedelta(days=1))
    with pytest.raises(OSError, match="CERTIFICATE_VERIFY_FAILED"):
        await TLSConnection.open(running.port, stranger.cert_pem)
    connection = await TLSConnection.open(running.port, ca.cert_pem)
    presented = x509.load_der_x509_certificate(connection.peer_certificate)
    presented.verify_directly_issued_by(ca.certificate)
    await connection.aclose()
