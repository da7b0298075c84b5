"""The webhook server over real TLS sockets, facing clients that are hostile or broken.

One pathological request must not stall the others, a body that never arrives or a handshake
that never ends must not hold a connection, and the keys cert-manager issues must be served.
Nothing here asserts a duration: `fail_after` only turns a hang into a failure.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import ssl
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from cryptography.x509.oid import NameOID

import dynamo_operator.validation
import webhooks.app
from e2e.support.admission_reviews import admission_review
from manager.runtime.http_server import ConnectionLimits
from manager.runtime.tls.directory import DirectoryCertificates
from manager.runtime.tls.key_pair import KeyPair, generate_ca, generate_serving_pair
from tests.webhooks.reviews import DGD_PATH
from tests.webhooks.tls_client import TLSConnection
from webhooks.server import WebhookServer

pytestmark = pytest.mark.anyio

HANG_GUARD = 30
NOW = datetime.now(UTC)
LIMITS = ConnectionLimits(max_connections=64, header_timeout=0.5, keepalive_timeout=5)
GRAPH: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "demo", "namespace": "default"},
    "spec": {"services": {"Frontend": {"componentType": "frontend", "replicas": 1}}},
}


def deeply_nested_review(levels: int = 1000) -> bytes:
    """About 4 KB: a graph whose probe nests a thousand levels deep (written as text: Python's
    own JSON encoder would hit its recursion limit)."""
    graph = json.loads(json.dumps(GRAPH))
    graph["spec"]["services"]["Frontend"]["livenessProbe"] = "PROBE"
    body = json.dumps(admission_review(graph))
    return body.replace('"PROBE"', '{"a":' * levels + "{}" + "}" * levels).encode()


@pytest.fixture
def ca() -> KeyPair:
    return generate_ca(NOW, timedelta(days=30))


async def run_server(directory: Path) -> AsyncIterator[WebhookServer]:
    server = WebhookServer(
        certificates=DirectoryCertificates(directory, poll_interval=timedelta(milliseconds=50)),
        validator=dynamo_operator.validation,
        host="127.0.0.1",
        port=0,
        limits=LIMITS,
    )
    async with anyio.create_task_group() as task_group:
        await task_group.start(server.run)
        yield server
        task_group.cancel_scope.cancel()


def install(directory: Path, pair: KeyPair) -> Path:
    directory.mkdir(exist_ok=True)
    (directory / "tls.crt").write_bytes(pair.cert_pem)
    (directory / "tls.key").write_bytes(pair.key_pem)
    return directory


@pytest.fixture
async def server(tmp_path: Path, ca: KeyPair) -> AsyncIterator[WebhookServer]:
    pair = generate_serving_pair(
        ca, NOW, timedelta(days=30), dns_names=["localhost"], ip_addresses=["127.0.0.1"]
    )
    async for running in run_server(install(tmp_path / "certs", pair)):
        yield running


async def answer(connection: TLSConnection, document: Any) -> dict[str, Any]:
    body = (
        document if isinstance(document, bytes) else json.dumps(admission_review(document)).encode()
    )
    status, body = await connection.post_body(DGD_PATH, body)
    assert status == 200, body
    response: dict[str, Any] = json.loads(body)["response"]
    return response


async def test_deep_nesting_is_denied_while_other_clients_keep_being_served(
    server: WebhookServer, ca: KeyPair
) -> None:
    """A 4 KB review nested 1000 levels deep used to raise RecursionError and, rendered by a
    pretty traceback printer, block the event loop for minutes."""
    deep = deeply_nested_review()
    assert len(deep) < 8000
    answers: dict[str, list[dict[str, Any]]] = {"deep": [], "normal": []}

    async def client(kind: str, document: Any) -> None:
        connection = await TLSConnection.open(server.port, ca.cert_pem)
        for _ in range(10):
            answers[kind].append(await answer(connection, document))
        await connection.aclose()

    with anyio.fail_after(HANG_GUARD):
        async with anyio.create_task_group() as task_group:
            for _ in range(4):
                task_group.start_soon(client, "deep", deep)
                task_group.start_soon(client, "normal", GRAPH)

    assert len(answers["deep"]) == len(answers["normal"]) == 40
    for denial in answers["deep"]:
        assert denial["allowed"] is False
        assert denial["status"]["message"].startswith(
            "nesting deeper than 100 levels at spec.services.Frontend.livenessProbe.a.a"
        )
    assert all(allowed["allowed"] for allowed in answers["normal"])


async def test_a_body_shorter_than_its_content_length_gets_408_and_the_connection_closed(
    server: WebhookServer, ca: KeyPair, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(webhooks.app, "BODY_TIMEOUT_SECONDS", 0.3)
    context = ssl.create_default_context(cadata=ca.cert_pem.decode())
    stream = await anyio.connect_tcp(
        "127.0.0.1", server.port, tls=True, ssl_context=context, tls_standard_compatible=False
    )
    await stream.send(
        f"POST {DGD_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        'Content-Length: 1000\r\n\r\n{"apiVersion":'.encode()
    )

    received = b""
    with anyio.fail_after(HANG_GUARD):
        with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError):
            while True:
                received += await stream.receive()
    assert received.startswith(b"HTTP/1.1 408 Request Timeout")
    assert b"request body not received within 0.3 seconds" in received

    # and the server is as good as before
    connection = await TLSConnection.open(server.port, ca.cert_pem)
    assert (await answer(connection, GRAPH))["allowed"] is True


@pytest.mark.parametrize("how", ["silent", "partial hello"])
async def test_a_tls_handshake_that_never_completes_is_cut_off(
    server: WebhookServer, ca: KeyPair, how: str
) -> None:
    stream = await anyio.connect_tcp("127.0.0.1", server.port)
    if how == "partial hello":
        await stream.send(b"\x16\x03\x01\x02\x00\x01")  # the start of a ClientHello, no more

    with anyio.fail_after(HANG_GUARD):
        with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError):
            while await stream.receive():
                pass
    connection = await TLSConnection.open(server.port, ca.cert_pem)
    assert (await answer(connection, GRAPH))["allowed"] is True


def leaf_with_key(ca: KeyPair, key: rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey) -> KeyPair:
    """A serving pair with a key of the given type, signed by ``ca`` (as cert-manager would)."""
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca.certificate.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - timedelta(minutes=5))
        .not_valid_after(NOW + timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(ca.private_key, hashes.SHA256())
    )
    return KeyPair(
        certificate.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


@pytest.mark.parametrize("algorithm", ["rsa-2048", "ed25519"])
async def test_rsa_and_ed25519_certificates_are_served(
    tmp_path: Path, ca: KeyPair, algorithm: str
) -> None:
    """cert-manager issues RSA keys by default; they were refused as 'not an ECDSA key'."""
    key = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        if algorithm == "rsa-2048"
        else ed25519.Ed25519PrivateKey.generate()
    )
    pair = leaf_with_key(ca, key)
    async for server in run_server(install(tmp_path / "certs", pair)):
        connection = await TLSConnection.open(server.port, ca.cert_pem)
        assert connection.peer_certificate == pair.certificate.public_bytes(
            serialization.Encoding.DER
        )
        assert (await answer(connection, GRAPH))["allowed"] is True
        await connection.aclose()
