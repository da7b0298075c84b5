"""Self-signed files for standalone runs: generated, renewed, repaired, and never someone else's
replaced (the polling reload is covered in test_server.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from manager.runtime.tls.key_pair import (
    KeyPair,
    generate_ca,
    generate_serving_pair,
    subject_alternative_names,
)
from webhooks.certificates.self_signed import MARKER, SelfSignedCertificates

NOW = datetime.now(UTC)


def pair_in(directory: Path) -> KeyPair:
    return KeyPair((directory / "tls.crt").read_bytes(), (directory / "tls.key").read_bytes())


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    certs = tmp_path / "certs"
    SelfSignedCertificates(certs).prepare(NOW)
    return certs


def test_generates_a_localhost_pair_and_its_ca_once(directory: Path) -> None:
    pair = pair_in(directory)
    pair.check(NOW)
    assert subject_alternative_names(pair.certificate) == {"localhost", "127.0.0.1"}
    ca = KeyPair((directory / "ca.crt").read_bytes(), b"")
    pair.certificate.verify_directly_issued_by(ca.certificate)
    assert (directory / "tls.key").stat().st_mode & 0o077 == 0
    assert (directory / "ca.key").stat().st_mode & 0o077 == 0

    SelfSignedCertificates(directory).prepare(NOW)
    assert (directory / "tls.crt").read_bytes() == pair.cert_pem


@pytest.mark.parametrize(
    "damage",
    [
        {"tls.crt": b"-----BEGIN CERTIFICATE-----\ngarbage\n"},
        {"tls.key": b"not a key"},
        {"tls.crt": b""},
    ],
    ids=["corrupt certificate", "corrupt key", "empty certificate"],
)
def test_a_corrupt_pair_of_its_own_is_regenerated_under_the_same_ca(
    directory: Path, damage: dict[str, bytes]
) -> None:
    ca_before = (directory / "ca.crt").read_bytes()
    for name, content in damage.items():
        (directory / name).write_bytes(content)

    SelfSignedCertificates(directory).prepare(NOW)

    pair_in(directory).check(NOW)
    assert (directory / "ca.crt").read_bytes() == ca_before  # clients keep trusting it


def test_its_certificate_is_renewed_before_it_expires(directory: Path) -> None:
    first = pair_in(directory)
    a_month_before = first.not_after - timedelta(days=29)

    SelfSignedCertificates(directory).prepare(a_month_before)

    renewed = pair_in(directory)
    assert renewed.not_after > first.not_after
    renewed.check(a_month_before)


def test_an_expired_certificate_of_its_own_is_replaced(directory: Path) -> None:
    later = pair_in(directory).not_after + timedelta(days=1)

    SelfSignedCertificates(directory).prepare(later)

    pair_in(directory).check(later)


def test_a_certificate_it_did_not_write_is_never_replaced(tmp_path: Path) -> None:
    """Even expired and for other names: it is the user's to fix, the server waits."""
    ca = generate_ca(NOW - timedelta(days=30), timedelta(days=10))
    user = generate_serving_pair(
        ca, NOW - timedelta(days=30), timedelta(days=5), dns_names=["webhook.example.com"]
    )
    directory = tmp_path / "certs"
    directory.mkdir()
    (directory / "tls.crt").write_bytes(user.cert_pem)
    (directory / "tls.key").write_bytes(user.key_pem)

    SelfSignedCertificates(directory).prepare(NOW)

    assert (directory / "tls.crt").read_bytes() == user.cert_pem
    assert (directory / "tls.key").read_bytes() == user.key_pem
    assert not (directory / MARKER).exists()


def test_a_certificate_put_in_place_of_its_own_is_the_users(directory: Path) -> None:
    ca = generate_ca(NOW, timedelta(days=10))
    user = generate_serving_pair(ca, NOW, timedelta(days=5), dns_names=["other.example.com"])
    (directory / "tls.crt").write_bytes(user.cert_pem)
    (directory / "tls.key").write_bytes(user.key_pem)

    SelfSignedCertificates(directory).prepare(NOW)

    assert (directory / "tls.crt").read_bytes() == user.cert_pem


def test_a_directory_from_before_markers_is_renewed_only_when_due(directory: Path) -> None:
    """Earlier versions wrote no marker and kept no ca.key; their pair is still served."""
    (directory / MARKER).unlink()
    (directory / "ca.key").unlink()
    pem = (directory / "tls.crt").read_bytes()

    SelfSignedCertificates(directory).prepare(NOW)
    assert (directory / "tls.crt").read_bytes() == pem

    later = pair_in(directory).not_after + timedelta(days=1)
    SelfSignedCertificates(directory).prepare(later)
    pair_in(directory).check(later)
