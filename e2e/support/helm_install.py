"""The operator installed as users install it: `helm install` of the repository's two charts on
the real-node cluster, with the operator image built from the Dockerfile imported into the node.

Shared by the install tests and the real-Dynamo tests: ``install`` returns an ``Installed`` once
the operator Pod is Ready and admission answers through the webhook Service.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from e2e.localcluster import AdminClient, ApiError, install_crds, is_condition_true, wait_for
from e2e.support.chart import CRD_CHART, OPERATOR_CHART, run_helm
from e2e.support.graphs import ROOT, is_converged, small_graph
from e2e.support.kinds import COMPONENT, GRAPH, LEADER_WORKER_SET
from e2e.support.metrics_access import scrape
from e2e.support.metrics_scrape import parse, total
from e2e.support.real_node import RealNodeCluster
from manager.runtime.kinds import DEPLOYMENT, PERSISTENT_VOLUME_CLAIM, SERVICE, SERVICE_ACCOUNT

RELEASE = "dynamo-operator"
SYSTEM = "dynamo-system"
SERVICE_MONITOR_CRD = ROOT / "hack" / "control-plane" / "servicemonitor-crd.sh"
CONVERGE = 240.0
OPERATOR_LABELS = "app.kubernetes.io/name=dynamo-operator"
WORKLOAD_KINDS = (
    COMPONENT,
    DEPLOYMENT,
    SERVICE,
    PERSISTENT_VOLUME_CLAIM,
    SERVICE_ACCOUNT,
    LEADER_WORKER_SET,
)
"""The kinds of the objects a graph makes that `Installed.workloads` reads."""


@dataclass
class Installed:
    """The cluster after `helm install` of both charts, with what the tests share."""

    node: RealNodeCluster
    admin: AdminClient
    image_values: list[str]
    install_to_ready: float
    sample_namespace: str = ""
    facts: dict[str, Any] = field(default_factory=dict)

    def helm(self, *arguments: str) -> str:
        return run_helm(*arguments, f"--kubeconfig={self.node.kubeconfig}")

    def operator_pods(self, namespace: str = SYSTEM) -> list[dict[str, Any]]:
        path = f"/api/v1/namespaces/{namespace}/pods?labelSelector={OPERATOR_LABELS}"
        pods: list[dict[str, Any]] = self.admin.get(path)["items"]
        return [p for p in pods if not p["metadata"].get("deletionTimestamp")]

    def ready_operator(self, namespace: str = SYSTEM, *, not_uid: str = "") -> dict[str, Any]:
        """The one operator Pod of the release in `namespace`, once Ready (and not `not_uid`)."""

        def ready() -> dict[str, Any] | None:
            pods = self.operator_pods(namespace)
            if len(pods) != 1 or pods[0]["metadata"]["uid"] == not_uid:
                return None
            return pods[0] if is_condition_true(pods[0], "Ready") else None

        return wait_for(f"one Ready operator Pod in {namespace}", ready, timeout=CONVERGE)

    def get(self, path: str) -> dict[str, Any] | None:
        return self.admin.find(path)

    def graph(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.get(GRAPH.object_path(namespace, name))

    def converged(self, namespace: str, name: str) -> dict[str, Any]:
        def probe() -> dict[str, Any] | None:
            graph = self.graph(namespace, name)
            return graph if graph is not None and is_converged(graph) else None

        return wait_for(f"DGD {namespace}/{name} successful", probe, timeout=CONVERGE)

    def token(self, namespace: str, account: str) -> str:
        path = f"/api/v1/namespaces/{namespace}/serviceaccounts/{account}/token"
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
        return str(self.admin.create(path, request)["status"]["token"])

    def workloads(self, namespace: str) -> dict[str, dict[str, Any]]:
        """Every object the graphs of `namespace` made (and the graphs), by resource and name
        (``deployments/<name>``)."""
        found: dict[str, dict[str, Any]] = {}
        for kind in (GRAPH, *WORKLOAD_KINDS):
            for item in self.admin.get(kind.collection_path(namespace))["items"]:
                found[f"{kind.plural}/{item['metadata']['name']}"] = item
        return found

    def workload_versions(self, namespace: str) -> dict[str, str]:
        """The resourceVersion of each of `workloads`: any write to one changes it."""
        return {
            key: item["metadata"]["resourceVersion"]
            for key, item in self.workloads(namespace).items()
        }

    def metrics_scraper(self, namespace: str = SYSTEM) -> Callable[[str | None], tuple[int, str]]:
        """Scrapes of the release's metrics Service at its ClusterIP, from the host through
        kube-proxy's rules (the certificate is self-signed: not verified, as a ServiceMonitor with
        insecureSkipVerify)."""
        service = self.admin.get(
            f"/api/v1/namespaces/{namespace}/services/{RELEASE}-metrics-service"
        )
        host, port = service["spec"]["clusterIP"], service["spec"]["ports"][0]["port"]
        return lambda token: scrape(port, token, host=host)

    def grant_metrics_reader(self, namespace: str, account: str) -> None:
        """Bind the release's metrics-reader ClusterRole to `account` (as for Prometheus)."""
        self.admin.create(
            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
            {
                "metadata": {"name": f"{namespace}-metrics"},
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": f"{RELEASE}-metrics-reader",
                },
                "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": namespace}],
            },
        )

    def settled(self) -> None:
        """Wait until the operator has reconciled graphs and components and its queues are
        empty: whatever it would change, it has changed by then."""
        namespace = self.node.create_namespace("settle")
        self.admin.create(
            f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": "reader"}}
        )
        self.grant_metrics_reader(namespace, "reader")
        token = self.token(namespace, "reader")
        metrics = self.metrics_scraper()

        def settled() -> bool:
            status, body = metrics(token)
            if status != 200:
                return False
            samples = parse(body)
            done = all(
                total(samples, "controller_runtime_reconcile_total", controller=controller) > 0
                for controller in ("dynamographdeployment", "dynamocomponentdeployment")
            )
            return done and total(samples, "workqueue_depth") == 0

        wait_for("the operator settled", settled, timeout=CONVERGE, interval=1.0)


def install(
    real_node: RealNodeCluster,
    image: Path,
    *,
    charts: tuple[Path, Path] = (CRD_CHART, OPERATOR_CHART),
    tag: str = "dev",
) -> Installed:
    """Both charts (CRDs, operator) installed as a user does, with the operator image (tagged
    `tag`) imported into the node."""
    admin = real_node.cluster.admin_client()
    real_node.import_image(image)
    crd = subprocess.run(
        [str(SERVICE_MONITOR_CRD)], capture_output=True, text=True, check=False, timeout=600
    )
    assert crd.returncode == 0, crd.stderr
    install_crds(admin, [yaml.safe_load(Path(crd.stdout.strip().splitlines()[-1]).read_text())])
    image_values = [
        "--set=controllerManager.manager.image.repository=localhost/dynamo-operator",
        f"--set=controllerManager.manager.image.tag={tag}",
        "--set=controllerManager.manager.image.pullPolicy=Never",
        "--set-string=controllerManager.nodeSelector.kubernetes\\.io/hostname="
        + real_node.node_name,
        "--set-json=controllerManager.tolerations="
        + json.dumps(real_node.pod_placement()["tolerations"]),
    ]
    started = time.monotonic()
    run_helm(
        "install", "dynamo-operator-crds", str(charts[0]), "--namespace=default",
        f"--kubeconfig={real_node.kubeconfig}",
    )  # fmt: skip
    run_helm(
        "install", RELEASE, str(charts[1]), f"--namespace={SYSTEM}", "--create-namespace",
        *image_values, f"--kubeconfig={real_node.kubeconfig}",
    )  # fmt: skip
    install = Installed(real_node, admin, image_values, 0.0)
    install.ready_operator()
    install.install_to_ready = time.monotonic() - started
    # Ready is not yet reachable: the Service's endpoint reaches kube-proxy's rules and the
    # injected CA reaches the API server's webhook client a moment later (as for any webhook).
    install.facts["install_to_admission"] = admission_works(install) - started
    print(
        f"\ninstall to Ready: {install.install_to_ready:.1f}s, "
        f"to admission through the Service: {install.facts['install_to_admission']:.1f}s"
    )
    return install


def invalid_graph(name: str) -> dict[str, Any]:
    """A graph the CRD schema accepts and the webhook denies: an Ingress without a host."""
    graph = small_graph(name)
    graph["spec"]["services"]["Frontend"]["ingress"] = {"enabled": True}
    return graph


def admission_works(installed: Installed, namespace: str = "default") -> float:
    """When a dry-run create of an invalid graph in `namespace` is first denied by the webhook."""
    invalid = invalid_graph("dry-run")
    path = GRAPH.collection_path(namespace) + "?dryRun=All"

    def denied() -> float | str:
        try:
            installed.admin.create(path, invalid)
        except ApiError as error:
            # Until then: the API server's call fails (no route, unknown authority), as a 500.
            return time.monotonic() if "denied the request" in error.body else error.body[150:700]
        raise AssertionError("an invalid graph was admitted")

    last: list[str] = []

    def answered() -> float | None:
        outcome = denied()
        if isinstance(outcome, str):
            last[:] = [outcome]
            return None
        return outcome

    try:
        return wait_for("admission through the webhook Service", answered, timeout=CONVERGE)
    except TimeoutError as error:
        raise AssertionError(f"no admission through the webhook Service: {last}") from error
