"""Self-signed files for standalone runs (the polling reload is covered in test_server.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from webhooks.certificates.directory import ensure_self_signed_files
from webhooks.certificates.generation import KeyPair, subject_alternative_names


def test_generates_a_localhost_pair_and_its_ca_once(tmp_path: Path) -> None:
    assert ensure_self_signed_files(tmp_path / "certs") is True
    directory = tmp_path / "certs"
    pair = KeyPair((directory / "tls.crt").read_bytes(), (directory / "tls.key").read_bytes())
    pair.check(datetime.now(UTC))
    assert subject_alternative_names(pair.certificate) == {"localhost", "127.0.0.1"}
    ca = KeyPair((directory / "ca.crt").read_bytes(), b"")
    pair.certificate.verify_directly_issued_by(ca.certificate)
    assert (directory / "tls.key").stat().st_mode & 0o077 == 0

    assert ensure_self_signed_files(directory) is False
    assert (directory / "tls.crt").read_bytes() == pair.cert_pem
