"""The operator as `hack/kind/charts.sh` installs it with Helm on the kind node: its own image
(`docker build` of the Dockerfile), Ready through the chart's probes, admission through the webhook
Service, and /metrics over HTTPS behind a bearer token."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request

import pytest

from e2e.kind.kubectl import get_json, kubectl, port_forward
from e2e.localcluster import is_condition_true
from e2e.support.graphs import small_graph
from e2e.support.helm_install import OPERATOR_LABELS, RELEASE, SYSTEM, invalid_graph

pytestmark = [pytest.mark.e2e, pytest.mark.kind]


def test_operator_pod_is_ready_through_its_probes() -> None:
    pods = get_json("pods", "-n", SYSTEM, "-l", OPERATOR_LABELS)["items"]
    assert len(pods) == 1
    pod = pods[0]
    container = pod["spec"]["containers"][0]
    assert container["image"] == "localhost/dynamo-operator:dev"
    assert container["readinessProbe"]["httpGet"]
    assert container["livenessProbe"]["httpGet"]
    assert is_condition_true(pod, "Ready")
    assert pod["status"]["containerStatuses"][0]["restartCount"] == 0


def test_webhook_denies_an_invalid_graph_through_its_service() -> None:
    denied = kubectl(
        "create", "--dry-run=server", "-n", "default", "-f", "-",
        stdin=json.dumps(invalid_graph("no-host")), check=False,
    )  # fmt: skip
    assert denied.returncode != 0
    assert "denied the request" in denied.stderr
    admitted = kubectl(
        "create", "--dry-run=server", "-n", "default", "-f", "-",
        stdin=json.dumps(small_graph("fine")),
    )  # fmt: skip
    assert "created (server dry run)" in admitted.stdout


def _get_metrics(port: int, token: str | None) -> tuple[int, str]:
    request = urllib.request.Request(f"https://127.0.0.1:{port}/metrics")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    # The operator's serving certificate is self-signed: what is checked here is the token.
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(request, context=insecure, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""


def test_metrics_are_served_over_https_to_a_metrics_reader_only() -> None:
    account = "kind-metrics-scraper"
    kubectl("create", "serviceaccount", account, "-n", "default")
    kubectl(
        "create", "clusterrolebinding", account, f"--clusterrole={RELEASE}-metrics-reader",
        f"--serviceaccount=default:{account}",
    )  # fmt: skip
    try:
        reader = kubectl("create", "token", account, "-n", "default").stdout.strip()
        other = kubectl("create", "token", "default", "-n", "default").stdout.strip()
        with port_forward(SYSTEM, f"svc/{RELEASE}-metrics-service", 8443) as port:
            assert _get_metrics(port, None)[0] == 401
            assert _get_metrics(port, other)[0] == 403
            status, body = _get_metrics(port, reader)
        assert status == 200
        assert "controller_runtime_reconcile_total" in body
    finally:
        kubectl("delete", "clusterrolebinding", account, check=False)
        kubectl("delete", "serviceaccount", account, "-n", "default", check=False)
