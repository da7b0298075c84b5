"""ProcessOwner over a fake API server: the reference it gives, what it reads, when it gives none.

`e2e/test_install.py` proves the point of it against a real cluster: after `helm uninstall`, the
leader-election Lease and the certificate Secret the operator created are garbage-collected.
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson
import pytest

from manager.runtime.client import RestClient
from manager.runtime.client.transport import HttpResponse
from manager.runtime.kinds import SERVICE_ACCOUNT, ResourceKind
from manager.runtime.process_owner import ProcessOwner

pytestmark = pytest.mark.anyio


class ApiServer:
    """Answers GETs of one ServiceAccount (or refuses them) and counts the requests."""

    server = "https://apiserver.invalid"

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.paths: list[str] = []

    async def request(
        self, method: str, path: str, *, params: Mapping[str, str] | None = None, **_: object
    ) -> HttpResponse:
        assert method == "GET"
        self.paths.append(path)
        if self.status != 200:
            body = {"kind": "Status", "code": self.status, "reason": "Forbidden", "message": "no"}
            return HttpResponse(self.status, orjson.dumps(body), {})
        account = {"metadata": {"name": "operator", "namespace": "ops", "uid": "sa-uid"}}
        return HttpResponse(200, orjson.dumps(account), {})


def owner(server: ApiServer) -> ProcessOwner:
    return ProcessOwner(RestClient(server), SERVICE_ACCOUNT, "ops", "operator")  # type: ignore[arg-type]


async def test_objects_in_the_owner_namespace_get_a_reference_read_once() -> None:
    server = ApiServer()
    process = owner(server)

    first = await process.reference("ops")
    second = await process.reference("ops")

    assert (
        first
        == second
        == {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "name": "operator",
            "uid": "sa-uid",
        }
    )
    assert server.paths == ["/api/v1/namespaces/ops/serviceaccounts/operator"]


async def test_objects_elsewhere_get_none_without_a_request() -> None:
    server = ApiServer()

    assert await owner(server).reference("elsewhere") is None
    assert server.paths == []


async def test_an_owner_that_cannot_be_read_leaves_objects_unowned() -> None:
    server = ApiServer(status=403)

    assert await owner(server).reference("ops") is None


def test_a_cluster_scoped_owner_is_refused() -> None:
    cluster_scoped = ResourceKind("v1", "Namespace", "namespaces", namespaced=False)
    with pytest.raises(ValueError, match="cluster-scoped"):
        ProcessOwner(RestClient(ApiServer()), cluster_scoped, "ops", "x")  # type: ignore[arg-type]
