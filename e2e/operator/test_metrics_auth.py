"""`/metrics` over HTTPS with authentication and authorisation by the operator itself.

`dynamo-operator run --metrics-secure` asks the real API server who a bearer token belongs to
(TokenReview) and whether that user may `get` the non-resource URL `/metrics`
(SubjectAccessReview), as controller-runtime's `filters.WithAuthenticationAndAuthorization` does
for kubebuilder operators, with no kube-rbac-proxy. The tokens are ServiceAccount tokens from the
TokenRequest API, RBAC decides. How many reviews reach the API server is read from the API
server's own `apiserver_request_total`.
"""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest

from e2e.support.metrics_access import MetricsIdentities, apiserver_reviews, scrape
from e2e.support.metrics_scrape import fetch
from e2e.support.operator_process import OperatorProcess, running_operator, start_operator
from e2e.support.polling import eventually
from manager.runtime.client import RestClient
from manager.runtime.tls import generate_ca, generate_serving_pair

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

PROMETHEUS = "prometheus"


@pytest.fixture(scope="module")
def secure_operator(
    kubeconfig: Path, installed_crds: list[Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OperatorProcess]:
    with running_operator(
        kubeconfig, tmp_path_factory.mktemp("secure-metrics"), "--metrics-secure", name="secure"
    ) as process:
        yield process


@pytest.fixture
async def identities(api: Any, namespace: str) -> AsyncIterator[MetricsIdentities]:
    identities = MetricsIdentities(RestClient.for_api(api), namespace)
    try:
        yield identities
    finally:
        await identities.remove()


async def get(port: int, token: str | None, **kwargs: Any) -> tuple[int, str]:
    return await anyio.to_thread.run_sync(lambda: scrape(port, token, **kwargs))


async def test_only_a_token_allowed_to_get_metrics_reads_them(
    secure_operator: OperatorProcess, identities: MetricsIdentities
) -> None:
    port = secure_operator.metrics_port
    reader = await identities.reader(PROMETHEUS)
    stranger = await identities.stranger()

    assert await get(port, None) == (401, "Unauthorized\n")
    assert await get(port, "garbage") == (401, "Unauthorized\n")
    # A well-formed token, signed by someone else: the API server does not know it either.
    assert (await get(port, reader[:-8] + "AAAAAAAA"))[0] == 401
    status, body = await get(port, stranger)
    assert status == 403
    assert (
        body
        == f"Authorization denied for user system:serviceaccount:{identities.namespace}:stranger\n"
    )

    status, body = await get(port, reader)
    assert status == 200, body
    assert "controller_runtime_reconcile_total{" in body
    assert "workqueue_depth{" in body
    # Plain HTTP gets no answer from a TLS listener.
    assert fetch(f"http://127.0.0.1:{port}/metrics")[0] != 200


# Counts every review the API server answers: only on the local control plane is nothing else
# (kubelets, metrics-server) asking for reviews meanwhile.
@pytest.mark.local_control_plane
async def test_reviews_are_cached_so_scrapes_cost_the_api_server_almost_nothing(
    secure_operator: OperatorProcess, identities: MetricsIdentities, api: Any
) -> None:
    """One TokenReview and one SubjectAccessReview for a token's first scrape, none for the next
    ones (cached 1 and 5 minutes, as in controller-runtime); a denial is cached too."""
    rest = RestClient.for_api(api)
    port = secure_operator.metrics_port
    await identities.reader(PROMETHEUS)
    token = await identities.token(PROMETHEUS)  # a token never presented before
    stranger = await identities.stranger()

    before = await apiserver_reviews(rest)
    for _ in range(5):
        assert (await get(port, token))[0] == 200
    for _ in range(5):
        assert (await get(port, stranger))[0] == 403
    after = await apiserver_reviews(rest)

    assert after["tokenreviews"] - before["tokenreviews"] == 2
    assert after["subjectaccessreviews"] - before["subjectaccessreviews"] == 2


async def test_a_mounted_certificate_is_served_and_verifies(
    kubeconfig: Path,
    installed_crds: list[Any],
    identities: MetricsIdentities,
    tmp_path: Path,
) -> None:
    """`--metrics-cert-path` with custom file names (a cert-manager Secret's keys, say): the
    scraper verifies the chain against the issuing CA, for 127.0.0.1."""
    now = datetime.now(UTC)
    ca = generate_ca(now, timedelta(days=30))
    pair = generate_serving_pair(
        ca, now, timedelta(days=7), dns_names=["localhost"], ip_addresses=["127.0.0.1"]
    )
    certs = tmp_path / "certs"
    certs.mkdir()
    (certs / "cert.pem").write_bytes(pair.cert_pem)
    (certs / "key.pem").write_bytes(pair.key_pem)
    ca_file = tmp_path / "ca.crt"
    ca_file.write_bytes(ca.cert_pem)
    reader = await identities.reader(PROMETHEUS)

    with running_operator(
        kubeconfig,
        tmp_path,
        "--metrics-secure",
        f"--metrics-cert-path={certs}",
        "--metrics-cert-name=cert.pem",
        "--metrics-cert-key=key.pem",
        name="mounted-cert",
    ) as operator:
        status, body = await get(operator.metrics_port, reader, ca_file=ca_file)
        assert status == 200, body
        # The operator's own certificate does not chain to this CA: verification is real.
        other = tmp_path / "other-ca.crt"
        other.write_bytes(generate_ca(now, timedelta(days=1)).cert_pem)
        assert (await get(operator.metrics_port, reader, ca_file=other))[0] == 0


async def test_missing_certificate_files_stop_the_operator_with_one_line(
    kubeconfig: Path, installed_crds: list[Any], tmp_path: Path
) -> None:
    operator = start_operator(
        kubeconfig, tmp_path, "--metrics-secure", f"--metrics-cert-path={tmp_path / 'none'}"
    )
    code = await anyio.to_thread.run_sync(lambda: operator.process.wait(60))
    assert code == 1
    [error] = [r for r in operator.logs() if r.get("level") == "error"]
    assert error["msg"] == "cannot serve metrics"
    assert "tls.crt" in error["error"]


async def test_without_an_api_server_a_scrape_is_a_500_and_the_operator_keeps_serving(
    tmp_path: Path,
) -> None:
    """Reviews that cannot be made are answered 500 with a log line, never cached, never a
    crash; requests without a token are still 401 (no review needed)."""
    unreachable = tmp_path / "kubeconfig"
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        dead_port = closed.getsockname()[1]
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "gone", "cluster": {"server": f"https://127.0.0.1:{dead_port}"}}],
        "users": [{"name": "u", "user": {"token": "operator-token"}}],
        "contexts": [{"name": "gone", "context": {"cluster": "gone", "user": "u"}}],
        "current-context": "gone",
    }
    unreachable.write_text(json.dumps(config))
    operator = start_operator(unreachable, tmp_path, "--metrics-secure", name="no-api")
    try:
        port = operator.metrics_port

        async def listening() -> bool:
            return (await get(port, None))[0] == 401

        await eventually("the secure metrics listener", listening, within=60)
        for _ in range(2):
            assert await get(port, "some-token") == (500, "Authentication failed\n")
        assert operator.process.poll() is None
        failures = [
            r for r in operator.logs() if r.get("msg") == "metrics request not authenticated"
        ]
        assert len(failures) == 2, operator.tail()
        assert "TokenReview failed" in failures[0]["error"]
    finally:
        operator.stop(timeout=60)
