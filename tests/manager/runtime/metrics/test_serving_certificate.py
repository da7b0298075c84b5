"""The secure metrics endpoint's certificate: self-signed at start, or files reloaded on change.

Handshakes go through real sockets; what a client is shown is read from the handshake itself.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography import x509

from manager.runtime.metrics.serving_certificate import (
    RENEW_BEFORE,
    SELF_SIGNED_VALIDITY,
    CertificateFiles,
    ServingCertificate,
)
from manager.runtime.tls import CertificateError, generate_self_signed


def self_signed_pair(now: datetime) -> tuple[bytes, bytes]:
    pair = generate_self_signed(now, timedelta(days=1), common_name="test")
    return pair.cert_pem, pair.key_pem


@contextmanager
def serving(context: ssl.SSLContext) -> Iterator[int]:
    """A TLS listener on 127.0.0.1 that completes handshakes with `context` until closed."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stopping = threading.Event()

    def accept() -> None:
        while not stopping.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection, context.wrap_socket(connection, server_side=True) as tls:
                tls.recv(1)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stopping.set()
        thread.join()
        listener.close()


def presented(port: int) -> x509.Certificate:
    client = ssl.create_default_context()
    client.check_hostname = False
    client.verify_mode = ssl.CERT_NONE
    with (
        socket.create_connection(("127.0.0.1", port)) as raw,
        client.wrap_socket(raw, server_hostname="localhost") as tls,
    ):
        der = tls.getpeercert(binary_form=True)
        tls.sendall(b"x")
    assert der is not None
    return x509.load_der_x509_certificate(der)


def write_pair(directory: Path, cert: str = "tls.crt", key: str = "tls.key") -> bytes:
    cert_pem, key_pem = self_signed_pair(datetime.now(UTC))
    (directory / cert).write_bytes(cert_pem)
    (directory / key).write_bytes(key_pem)
    return cert_pem


def test_without_files_a_self_signed_certificate_for_localhost_is_served() -> None:
    certificate = ServingCertificate(self_signed_name="shop-metrics")
    with serving(certificate.context) as port:
        shown = presented(port)

    names = shown.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["localhost"]
    assert [str(ip) for ip in names.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert shown.issuer == shown.subject
    assert shown.subject.rfc4514_string() == "CN=shop-metrics"  # the application's name
    assert shown.not_valid_after_utc == certificate.not_after


def test_a_self_signed_certificate_is_made_again_a_month_before_it_expires() -> None:
    certificate = ServingCertificate(self_signed_name="shop-metrics")
    first = certificate.not_after
    issued = first - SELF_SIGNED_VALIDITY

    assert (
        certificate.refresh(issued + SELF_SIGNED_VALIDITY - RENEW_BEFORE - timedelta(days=1))
        is False
    )
    assert certificate.refresh(first - RENEW_BEFORE + timedelta(seconds=1)) is True
    assert certificate.not_after > first


def test_named_files_are_served_and_a_changed_pair_is_served_from_the_next_handshake(
    tmp_path: Path,
) -> None:
    first_pem = write_pair(tmp_path, "serving.pem", "serving-key.pem")
    certificate = ServingCertificate(
        CertificateFiles(tmp_path, "serving.pem", "serving-key.pem"), self_signed_name="unused"
    )
    with serving(certificate.context) as port:
        assert presented(port) == x509.load_pem_x509_certificate(first_pem)
        assert certificate.refresh(datetime.now(UTC)) is False  # unchanged files

        second_pem = write_pair(tmp_path, "serving.pem", "serving-key.pem")
        assert certificate.refresh(datetime.now(UTC)) is True
        assert presented(port) == x509.load_pem_x509_certificate(second_pem)


def test_a_pair_that_does_not_load_is_skipped_and_the_previous_one_kept(tmp_path: Path) -> None:
    first_pem = write_pair(tmp_path)
    certificate = ServingCertificate(CertificateFiles(tmp_path), self_signed_name="unused")
    # A new certificate with the old key: the pair does not match.
    new_cert, _ = self_signed_pair(datetime.now(UTC))
    (tmp_path / "tls.crt").write_bytes(new_cert)
    assert certificate.refresh(datetime.now(UTC)) is False
    (tmp_path / "tls.key").unlink()
    assert certificate.refresh(datetime.now(UTC)) is False

    with serving(certificate.context) as port:
        assert presented(port) == x509.load_pem_x509_certificate(first_pem)


@pytest.mark.parametrize("damage", ["missing", "garbage", "mismatched"])
def test_files_that_cannot_be_served_at_start_are_refused(tmp_path: Path, damage: str) -> None:
    write_pair(tmp_path)
    if damage == "missing":
        (tmp_path / "tls.key").unlink()
    elif damage == "garbage":
        (tmp_path / "tls.crt").write_text("not a certificate")
    else:
        (tmp_path / "tls.crt").write_bytes(self_signed_pair(datetime.now(UTC))[0])

    with pytest.raises(CertificateError):
        ServingCertificate(CertificateFiles(tmp_path), self_signed_name="unused")
