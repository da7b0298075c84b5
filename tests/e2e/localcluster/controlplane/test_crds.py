"""The harness's one CRD installer over a fake API server: created once, kept when present,
waited for until Established (e2e/operator/test_crds.py and every e2e session use it for real)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from e2e.localcluster.controlplane.admin_client import AdminClient, ApiError
from e2e.localcluster.controlplane.crds import CRD_PATH, install_crds

ESTABLISHED = {"conditions": [{"type": "Established", "status": "True"}]}


def crd(name: str) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "metadata": {"name": name}}


class FakeServer(AdminClient):
    """An API server whose CRDs become Established after `reads_until_established` reads;
    `racing`: another installer creates each CRD between this one's read and its create."""

    def __init__(self, *present: str, reads_until_established: int = 0, racing: bool = False):
        self.crds: dict[str, dict[str, Any]] = {name: crd(name) for name in present}
        self.created: list[str] = []
        self.reads: dict[str, int] = {}
        self.reads_until_established = reads_until_established
        self.racing = racing

    def find(self, path: str) -> dict[str, Any] | None:
        name = path.removeprefix(f"{CRD_PATH}/")
        self.reads[name] = self.reads.get(name, 0) + 1
        found = self.crds.get(name)
        if found is None:
            return None
        if self.reads[name] > self.reads_until_established:
            found["status"] = ESTABLISHED
        return found

    def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        assert path == CRD_PATH
        name = body["metadata"]["name"]
        if self.racing:
            self.crds[name] = crd(name)
        if name in self.crds:
            raise ApiError(409, "AlreadyExists")
        self.crds[name] = dict(body)
        self.created.append(name)
        return body


def names(installed: list[Mapping[str, Any]]) -> list[str]:
    return [c["metadata"]["name"] for c in installed]


def test_each_crd_is_created_and_returned_once_established() -> None:
    server = FakeServer(reads_until_established=3)

    installed = install_crds(server, [crd("a.example.com"), crd("b.example.com")])

    assert server.created == ["a.example.com", "b.example.com"]
    assert names(installed) == ["a.example.com", "b.example.com"]
    assert all(c["status"] == ESTABLISHED for c in installed)


def test_a_crd_already_there_is_kept_as_it_is() -> None:
    server = FakeServer("a.example.com")

    assert names(install_crds(server, [crd("a.example.com")])) == ["a.example.com"]
    assert server.created == []


def test_one_a_parallel_installer_created_meanwhile_is_fine() -> None:
    server = FakeServer(racing=True)

    assert names(install_crds(server, [crd("a.example.com")])) == ["a.example.com"]


def test_a_refused_crd_fails_the_install() -> None:
    class Refusing(FakeServer):
        def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
            raise ApiError(422, "spec.versions: Required value")

    with pytest.raises(ApiError, match="422"):
        install_crds(Refusing(), [crd("a.example.com")])


def test_a_crd_never_established_names_itself_in_the_timeout() -> None:
    server = FakeServer(reads_until_established=10**6)

    with pytest.raises(TimeoutError, match=r"CRD a\.example\.com Established"):
        install_crds(server, [crd("a.example.com")], timeout=0.3)
