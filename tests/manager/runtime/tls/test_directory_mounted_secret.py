"""Certificates from a mounted Secret (cert-manager mode): the kubelet's volume layout, where
``tls.crt`` and ``tls.key`` are symlinks through ``..data`` and a renewal swaps ``..data`` in one
step. A swap between the two reads must never be served, nor reported, as a mismatched pair."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from manager.runtime.tls.directory import DirectoryCertificates
from manager.runtime.tls.key_pair import KeyPair, generate_ca, generate_serving_pair

NOW = datetime.now(UTC)


def serving_pair(ca: KeyPair) -> KeyPair:
    return generate_serving_pair(
        ca, NOW, timedelta(days=1), dns_names=["localhost"], ip_addresses=["127.0.0.1"]
    )


def sync_volume(volume: Path, files: dict[str, bytes], revision: int) -> None:
    """What the kubelet does for a Secret volume: a new timestamped directory, then ``..data``
    swapped to it by a rename, with each key a symlink through ``..data``."""
    snapshot = volume / f"..rev-{revision}"
    snapshot.mkdir()
    for name, content in files.items():
        (snapshot / name).write_bytes(content)
        link = volume / name
        if not link.is_symlink():
            link.symlink_to(Path("..data") / name)
    staging = volume / "..data_tmp"
    staging.symlink_to(snapshot.name)
    os.replace(staging, volume / "..data")


@pytest.fixture
def ca() -> KeyPair:
    return generate_ca(NOW, timedelta(days=1))


def test_reads_the_pair_through_the_volume_links(tmp_path: Path, ca: KeyPair) -> None:
    first, second = serving_pair(ca), serving_pair(ca)
    sync_volume(tmp_path, {"tls.crt": first.cert_pem, "tls.key": first.key_pem}, 1)
    certificates = DirectoryCertificates(tmp_path)
    assert certificates.read_pair() == first

    sync_volume(tmp_path, {"tls.crt": second.cert_pem, "tls.key": second.key_pem}, 2)
    assert certificates.read_pair() == second


def test_a_renewal_swapped_in_between_the_two_reads_gives_the_new_pair(
    tmp_path: Path, ca: KeyPair, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = serving_pair(ca), serving_pair(ca)
    sync_volume(tmp_path, {"tls.crt": old.cert_pem, "tls.key": old.key_pem}, 1)
    read_bytes = Path.read_bytes
    swapped = False

    def kubelet_swaps_before_the_key_is_read(path: Path) -> bytes:
        nonlocal swapped
        if path.name == "tls.key" and not swapped:
            swapped = True
            sync_volume(tmp_path, {"tls.crt": new.cert_pem, "tls.key": new.key_pem}, 2)
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", kubelet_swaps_before_the_key_is_read)
    pair = DirectoryCertificates(tmp_path).read_pair()

    assert swapped
    assert pair == new
    pair.check(NOW)  # certificate and key belong together


def test_other_file_names(tmp_path: Path, ca: KeyPair) -> None:
    pair = serving_pair(ca)
    sync_volume(tmp_path, {"cert.pem": pair.cert_pem, "key.pem": pair.key_pem}, 1)
    certificates = DirectoryCertificates(tmp_path, cert_name="cert.pem", key_name="key.pem")
    assert certificates.read_pair() == pair
    with pytest.raises(FileNotFoundError):
        DirectoryCertificates(tmp_path).read_pair()
