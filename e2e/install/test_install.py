"""Installed as users install it: `helm install` of the repository's two charts puts the operator's
own image (built from the Dockerfile) in a real Pod on a real node (kubelet + containerd).

The module's cluster is the real-node fixture's in-cluster control plane (kwok nodes beside the
real one, LeaderWorkerSet installed, the ServiceMonitor CRD from the prometheus-operator module so
the chart's ServiceMonitor is rendered). The tests run in order, as a user's day goes: install and
readiness through the kubelet's probes, the sample graph reconciled (its workload Pods on kwok
nodes), admission through the webhook Service, metrics over HTTPS through the metrics Service,
`helm upgrade`, a namespace-restricted release beside the cluster-wide one, `helm uninstall`.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
import yaml

from e2e.localcluster import ApiError, wait_for
from e2e.support.chart import OPERATOR_CHART
from e2e.support.graphs import ROOT, load_graph, persistent_volume, small_graph
from e2e.support.helm_install import (
    CONVERGE,
    RELEASE,
    SYSTEM,
    Installed,
    admission_works,
    install,
    invalid_graph,
)
from e2e.support.kinds import COMPONENT, GRAPH
from e2e.support.metrics_scrape import parse, total
from e2e.support.real_node import RealNodeCluster

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

SAMPLE = ROOT / "examples" / "vllm-disagg.yaml"


@pytest.fixture(scope="module")
def installed(
    real_node: RealNodeCluster,
    operator_image_tar: Path,
) -> Installed:
    return install(real_node, operator_image_tar)


# -- the tests, in a user's order -----------------------------------------------------------------


def test_the_operator_runs_in_a_ready_pod_on_the_real_node_through_its_probes(
    installed: Installed, record_property: Any
) -> None:
    record_property("install_to_ready_seconds", round(installed.install_to_ready, 1))
    [pod] = installed.operator_pods()
    assert pod["spec"]["nodeName"] == installed.node.node_name
    [manager] = [c for c in pod["spec"]["containers"] if c["name"] == "manager"]
    assert manager["image"] == "localhost/dynamo-operator:dev"
    assert manager["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert manager["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert manager["securityContext"]["readOnlyRootFilesystem"] is True
    [status] = [s for s in pod["status"]["containerStatuses"] if s["name"] == "manager"]
    # Ready through the kubelet's probe of /readyz, never restarted (no liveness kill, no crash).
    assert status["ready"] is True
    assert status["restartCount"] == 0
    assert "running" in status["state"]
    # Prometheus-operator's API is served here, so the chart asked it to scrape the operator.
    monitor = installed.get(
        f"/apis/monitoring.coreos.com/v1/namespaces/{SYSTEM}/servicemonitors/{RELEASE}-operator"
    )
    assert monitor is not None
    assert monitor["spec"]["endpoints"][0]["scheme"] == "https"
    # It reached the API server with its ServiceAccount token: it logged in and took the lead.
    lease = installed.get(
        f"/apis/coordination.k8s.io/v1/namespaces/{SYSTEM}/leases/dynamo.nvidia.com"
    )
    assert lease is not None
    assert lease["spec"]["holderIdentity"].startswith(pod["metadata"]["name"])


def test_the_sample_graph_is_reconciled_with_its_workloads_on_kwok_nodes(
    installed: Installed,
) -> None:
    namespace = installed.node.create_namespace("sample")
    installed.sample_namespace = namespace
    graph = load_graph(SAMPLE)
    # The sample mounts a claim; the cluster has no provisioner, so a volume waits for it.
    installed.admin.create(
        "/api/v1/persistentvolumes",
        persistent_volume(f"{namespace}-model-cache", namespace, "model-cache"),
    )
    installed.admin.create(GRAPH.collection_path(namespace), graph)

    converged = installed.converged(namespace, graph["metadata"]["name"])

    components = installed.admin.get(COMPONENT.collection_path(namespace))["items"]
    assert len(components) == len(converged["spec"]["services"])
    pods = installed.admin.get(f"/api/v1/namespaces/{namespace}/pods")["items"]
    assert pods, "the graph's workloads have no Pods"
    assert all(p["spec"]["nodeName"].startswith("kwok-") for p in pods), [
        (p["metadata"]["name"], p["spec"].get("nodeName")) for p in pods
    ]


def test_an_invalid_graph_is_denied_through_the_webhook_service(installed: Installed) -> None:
    configuration = installed.admin.get(
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/"
        f"{RELEASE}-validating"
    )
    for webhook in configuration["webhooks"]:
        service = webhook["clientConfig"]["service"]
        assert (service["namespace"], service["name"]) == (
            SYSTEM,
            "dynamo-operator-webhook-service",
        )
        assert webhook["clientConfig"].get("caBundle"), "the operator did not inject its CA"
    namespace = installed.sample_namespace or installed.node.create_namespace("denied")
    invalid = invalid_graph("no-host")

    with pytest.raises(ApiError) as denied:
        installed.admin.create(GRAPH.collection_path(namespace), invalid)

    assert denied.value.status in (400, 403, 422), denied.value
    assert "denied the request" in denied.value.body
    assert "spec.services.Frontend.ingress" in denied.value.body
    assert installed.graph(namespace, "no-host") is None


def test_metrics_need_an_authorised_token_over_https_through_the_metrics_service(
    installed: Installed,
) -> None:
    metrics = installed.metrics_scraper()
    namespace = installed.node.create_namespace("scrapers")
    for account in ("prometheus", "stranger"):
        installed.admin.create(
            f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": account}}
        )
    installed.grant_metrics_reader(namespace, "prometheus")

    # Like the webhook Service's, its endpoint reaches kube-proxy's rules a moment after Ready.
    status = wait_for("the metrics Service answering", lambda: metrics(None)[0] or None)
    assert status == 401
    assert metrics(installed.token(namespace, "stranger"))[0] == 403
    status, body = metrics(installed.token(namespace, "prometheus"))
    assert status == 200, body
    assert total(parse(body), "controller_runtime_reconcile_total") > 0


def test_helm_upgrade_rolls_the_operator_and_leaves_every_workload_alone(
    installed: Installed,
) -> None:
    namespace = installed.sample_namespace
    assert namespace, "needs the sample graph"
    before_pod = installed.ready_operator()
    before = installed.workload_versions(namespace)

    installed.helm(
        "upgrade", RELEASE, str(OPERATOR_CHART), f"--namespace={SYSTEM}", "--reuse-values",
        "--set=controllerManager.manager.logLevel=debug",
    )  # fmt: skip
    after_pod = installed.ready_operator(not_uid=before_pod["metadata"]["uid"])
    [manager] = [c for c in after_pod["spec"]["containers"] if c["name"] == "manager"]
    assert {"name": "LOG_LEVEL", "value": "debug"} in manager["env"]
    # The new operator has listed everything and worked through its queues: whatever it would
    # change, it has changed by now.
    installed.settled()

    assert installed.workload_versions(namespace) == before


def test_a_restricted_release_manages_its_namespace_with_a_namespaced_role(
    installed: Installed,
) -> None:
    team = installed.node.create_namespace("team")
    installed.helm(
        "install", "team-operator", str(OPERATOR_CHART), f"--namespace={team}",
        "--set=namespaceRestriction.enabled=true", *installed.image_values,
    )  # fmt: skip
    restricted = installed.ready_operator(team)
    admission_works(installed, team)  # its own webhook configuration, for this namespace only
    manifest = list(
        yaml.safe_load_all(
            installed.helm("get", "manifest", "team-operator", f"--namespace={team}")
        )
    )
    cluster_roles = [d for d in manifest if d and d["kind"] == "ClusterRole"]
    roles = [d for d in manifest if d and d["kind"] == "Role"]
    # The graph rules are namespaced; the only cluster-scoped rules are the documented ones
    # (metrics authentication and reading, CA injection into this release's configuration).
    assert any(
        "dynamographdeployments" in rule.get("resources", ())
        for role in roles
        for rule in role["rules"]
    )
    assert not any(
        "dynamographdeployments" in rule.get("resources", ())
        for role in cluster_roles
        for rule in role["rules"]
    )
    installed.admin.create(GRAPH.collection_path(team), small_graph("team-graph"))

    installed.converged(team, "team-graph")

    marker = installed.get(
        f"/apis/coordination.k8s.io/v1/namespaces/{team}/leases/dynamo-operator-namespace-scope"
    )
    assert marker is not None
    events = installed.admin.get(
        f"/api/v1/namespaces/{team}/events?fieldSelector=involvedObject.name=team-graph"
    )["items"]
    reporters = {e.get("reportingInstance") for e in events}
    assert reporters == {restricted["metadata"]["name"]}, reporters


def test_helm_uninstall_leaves_the_crds_the_graphs_and_their_discovery_role_only(
    installed: Installed,
) -> None:
    namespace = installed.sample_namespace
    assert namespace, "needs the sample graph"
    [graph] = installed.admin.get(GRAPH.collection_path(namespace))["items"]
    before = installed.workload_versions(namespace)
    teams = [
        release
        for release in json.loads(installed.helm("list", "--all-namespaces", "--output=json"))
        if release["name"] == "team-operator"
    ]

    for release in teams:
        installed.helm("uninstall", "team-operator", f"--namespace={release['namespace']}")
    installed.helm("uninstall", RELEASE, f"--namespace={SYSTEM}", "--wait")
    installed.helm("uninstall", "dynamo-operator-crds", "--namespace=default")

    for name in ("dynamographdeployments", "dynamocomponentdeployments", "dynamomodels"):
        assert installed.get(
            f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}.nvidia.com"
        ), f"{name} CRD removed"
    assert installed.graph(namespace, graph["metadata"]["name"]) is not None
    assert installed.workload_versions(namespace).keys() == before.keys()
    wait_for("the operator Pods gone", lambda: not installed.operator_pods(), timeout=CONVERGE)
    # What the operators created for themselves goes with their ServiceAccounts (garbage
    # collection); a restricted operator deletes its namespace marker when it stops.
    namespaces = [SYSTEM, *(release["namespace"] for release in teams)]
    owned = [
        *(f"/api/v1/namespaces/{ns}/secrets/webhook-server-cert" for ns in namespaces),
        f"/apis/coordination.k8s.io/v1/namespaces/{SYSTEM}/leases/dynamo.nvidia.com",
        *(
            f"/apis/coordination.k8s.io/v1/namespaces/{release['namespace']}/leases/"
            "dynamo-operator-namespace-scope"
            for release in teams
        ),
    ]
    remaining: list[dict[str, Any]] = []

    def collected() -> bool:
        remaining[:] = [found for path in owned if (found := installed.get(path)) is not None]
        return not remaining

    try:
        wait_for("the operators' own Secrets and Leases collected", collected, timeout=60)
    except TimeoutError as error:
        left = [(o["kind"], o["metadata"]["namespace"], o["metadata"]["name"]) for o in remaining]
        owners = [o["metadata"].get("ownerReferences") for o in remaining]
        raise AssertionError(f"left after uninstall: {left}; their owners: {owners}") from error
    leftovers = {
        f"{kind} {name}"
        for kind, path in _RELEASE_KINDS.items()
        for name in _names(
            installed, path, f"app.kubernetes.io/instance in ({RELEASE},team-operator)"
        )
    }
    # Kept (resource policy): the graphs left running are bound to it, their pods still need it.
    assert leftovers == {f"ClusterRole {RELEASE}-k8s-service-discovery"}


# -- helpers ----------------------------------------------------------------------------------


_RELEASE_KINDS = {
    "Deployment": f"/apis/apps/v1/namespaces/{SYSTEM}/deployments",
    "Service": f"/api/v1/namespaces/{SYSTEM}/services",
    "ServiceAccount": f"/api/v1/namespaces/{SYSTEM}/serviceaccounts",
    "ConfigMap": f"/api/v1/namespaces/{SYSTEM}/configmaps",
    "ClusterRole": "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    "ClusterRoleBinding": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "ValidatingWebhookConfiguration": (
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
    ),
}


def _names(installed: Installed, path: str, selector: str) -> list[str]:
    items = installed.admin.get(f"{path}?labelSelector={urllib.parse.quote(selector)}")["items"]
    return [item["metadata"]["name"] for item in items]
