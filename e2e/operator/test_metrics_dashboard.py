"""Every query of the Grafana dashboard answers with series from a running operator.

`dynamo-operator run` (secure metrics, leader election, webhooks) works through what each panel
shows: a graph converges, a second graph in a namespace whose ResourceQuota forbids Deployments
fails its reconciles, an invalid graph is denied by the admission webhook. `/metrics` is scraped
twice, some seconds apart (rates need two samples), with an authorised ServiceAccount token, and
each dashboard query runs against the two scrapes in Prometheus's own PromQL engine
(`hack/promql-check`, built once from its Go module): it must parse and return at least one
series, with the template variables set to "All" and to one namespace and controller.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from e2e.localcluster.ports import free_port
from e2e.support.dashboard import load_dashboard, panel_queries, substitute, variable_queries
from e2e.support.graphs import ROOT, World, small_graph
from e2e.support.kinds import GRAPH, RESOURCE_QUOTA
from e2e.support.metrics_access import MetricsIdentities, scrape
from e2e.support.metrics_scrape import parse, total
from e2e.support.operator_process import running_operator
from e2e.support.polling import eventually
from manager.runtime.client import ApiError, NotFound, RestClient
from manager.runtime.kinds import NAMESPACE
from manager.runtime.tls import generate_ca, generate_serving_pair
from webhooks import (
    VALIDATING_WEBHOOK_CONFIGURATION,
    UrlTarget,
    build_validating_webhook_configuration,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio, pytest.mark.local_control_plane]

BUILD = ROOT / "hack" / "promql-check" / "build.sh"
JOB = "dynamo-operator"
SCRAPE_GAP = 15.0
"""Seconds between the two scrapes, Prometheus's usual interval; spacing only, never asserted."""


@pytest.fixture(scope="session")
def promql_check() -> Path:
    """The checker binary, built on first use and cached (a failed build fails the test)."""
    built = subprocess.run([str(BUILD)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, f"{BUILD} failed:\n{built.stderr[-4000:]}"
    return Path(built.stdout.strip().splitlines()[-1])


@pytest.fixture
async def quota_namespace(api: Any) -> AsyncIterator[str]:
    """A namespace where no Deployment may be created: every component's reconcile fails."""
    rest = RestClient.for_api(api)
    name = f"metrics-quota-{uuid.uuid4().hex[:6]}"
    await rest.create(
        NAMESPACE,
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
        field_manager="e2e",
    )
    await rest.create(
        RESOURCE_QUOTA,
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "no-deployments", "namespace": name},
            "spec": {"hard": {"count/deployments.apps": "0"}},
        },
        field_manager="e2e",
    )

    # Quota admission ignores a quota the controller-manager has not counted yet (no
    # status.hard): until then Deployments would be created and nothing would fail.
    async def in_force() -> bool:
        quota = await rest.get(RESOURCE_QUOTA, name, "no-deployments")
        return bool((quota.get("status") or {}).get("hard"))

    await eventually("the ResourceQuota in force", in_force)
    try:
        yield name
    finally:
        await rest.delete(NAMESPACE, None, name)


@pytest.fixture
async def webhook_configuration(
    api: Any, namespace: str, quota_namespace: str, tmp_path: Path
) -> AsyncIterator[tuple[int, Path]]:
    """A webhook port, a certificate directory for 127.0.0.1, and a configuration sending the two
    test namespaces' admissions there; removed before the namespaces go."""
    rest = RestClient.for_api(api)
    now = datetime.now(UTC)
    ca = generate_ca(now, timedelta(days=1))
    pair = generate_serving_pair(
        ca, now, timedelta(days=1), dns_names=[], ip_addresses=["127.0.0.1"]
    )
    cert_dir = tmp_path / "webhook-certs"
    cert_dir.mkdir()
    (cert_dir / "tls.crt").write_bytes(pair.cert_pem)
    (cert_dir / "tls.key").write_bytes(pair.key_pem)
    port = free_port()
    configuration = build_validating_webhook_configuration(
        UrlTarget(f"https://127.0.0.1:{port}"),
        name=f"dynamo-e2e-dashboard-{namespace}",
        operator_namespace=namespace,
        ca_bundle_pem=ca.cert_pem,
        namespace_selector={
            "matchExpressions": [
                {
                    "key": "kubernetes.io/metadata.name",
                    "operator": "In",
                    "values": [namespace, quota_namespace],
                }
            ]
        },
    )
    await rest.create(VALIDATING_WEBHOOK_CONFIGURATION, configuration, field_manager="e2e")
    try:
        yield port, cert_dir
    finally:
        with contextlib.suppress(NotFound):
            await rest.delete(
                VALIDATING_WEBHOOK_CONFIGURATION, None, configuration["metadata"]["name"]
            )


async def test_every_dashboard_query_returns_series_from_a_running_operator(
    api: Any,
    kubeconfig: Path,
    installed_crds: list[Any],
    namespace: str,
    quota_namespace: str,
    webhook_configuration: tuple[int, Path],
    promql_check: Path,
    tmp_path: Path,
) -> None:
    rest = RestClient.for_api(api)
    webhook_port, cert_dir = webhook_configuration
    identities = MetricsIdentities(rest, namespace)
    token = await identities.reader("prometheus")
    try:
        with running_operator(
            kubeconfig,
            tmp_path,
            "--metrics-secure",
            "--leader-elect",
            f"--leader-election-id=dashboard-{namespace}",
            "--enable-webhooks",
            "--manage-crd-conversion=false",  # the session's conversion webhook stays
            f"--webhook-port={webhook_port}",
            f"--webhook-cert-dir={cert_dir}",
            name="dashboard",
            env={"POD_NAMESPACE": namespace},  # where its leader-election Lease lives
        ) as operator:
            port = operator.metrics_port

            async def metrics() -> str:
                status, body = await anyio.to_thread.run_sync(lambda: scrape(port, token))
                assert status == 200, body
                return body

            healthy, failing = World(rest, namespace), World(rest, quota_namespace)
            await healthy.create(GRAPH, small_graph("serving"))
            await failing.create(GRAPH, small_graph("over-quota"))
            invalid = small_graph("denied")
            invalid["spec"]["services"]["Frontend"]["ingress"] = {"enabled": True}  # no host
            with pytest.raises(ApiError, match="denied the request"):
                await healthy.create(GRAPH, invalid)
            await healthy.converged("serving")

            missing: list[str] = []

            async def everything_shown() -> str | None:
                text = await metrics()
                samples = parse(text)
                errors = "dynamo_operator_reconcile_errors_total"
                inventory = "dynamo_operator_resources_total"
                wanted = {
                    "reconcile errors in the quota namespace": total(
                        samples, errors, namespace=quota_namespace
                    )
                    > 0,
                    "inventory of the healthy namespace": total(
                        samples, inventory, namespace=namespace
                    )
                    > 0,
                    "inventory of the quota namespace": total(
                        samples, inventory, namespace=quota_namespace
                    )
                    > 0,
                    "webhook denials": total(samples, "dynamo_operator_webhook_denials_total") > 0,
                    "leadership": total(samples, "leader_election_master_status") == 1,
                }
                missing[:] = [what for what, shown in wanted.items() if not shown]
                return None if missing else text

            try:
                first = await eventually("every series the dashboard needs", everything_shown)
            except TimeoutError as error:
                raise AssertionError(f"never shown: {missing}") from error
            first_at = time.time()
            await anyio.sleep(SCRAPE_GAP)
            second = await metrics()
            second_at = time.time()
    finally:
        await identities.remove()

    scrapes = []
    for index, (text, at) in enumerate(((first, first_at), (second, second_at))):
        path = tmp_path / f"scrape-{index}.txt"
        path.write_text(text)
        scrapes += ["-scrape", f"{int(at * 1000)}={path}"]

    dashboard = load_dashboard()
    every = {"job": JOB, "namespace": ".*", "controller": ".*"}
    one = {"job": JOB, "namespace": quota_namespace, "controller": "dynamocomponentdeployment"}
    queries: list[tuple[str, str]] = []
    for values, label in ((every, "all"), (one, "one")):
        queries += [
            (f"{q.where} [{label}]", substitute(q.expr, values)) for q in panel_queries(dashboard)
        ]
    variables = [
        (name, substitute(selector, every), lab)
        for name, selector, lab in variable_queries(dashboard)
    ]
    queries += [(f"variable {name}", selector) for name, selector, _ in variables]

    checked = await anyio.run_process(
        [str(promql_check), "-job", JOB, "-instance", f"127.0.0.1:{port}", *scrapes],
        input=json.dumps([expr for _, expr in queries]).encode(),
        check=False,
    )
    assert checked.returncode == 0, checked.stderr.decode()
    answers = json.loads(checked.stdout)
    assert [a["query"] for a in answers] == [expr for _, expr in queries]

    failures = [
        f"{where}: {answer['error'] or 'no series'}\n    {answer['query']}"
        for (where, _), answer in zip(queries, answers, strict=True)
        if answer["error"] or answer["series"] < 1
    ]
    assert not failures, "dashboard queries without an answer:\n" + "\n".join(failures)
    by_query = {answer["query"]: answer for answer in answers}
    for name, selector, label in variables:
        assert label in by_query[selector]["sample"], f"variable {name}: no {label} label"
