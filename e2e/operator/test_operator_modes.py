"""Deployment modes with real `dynamo-operator run` processes: who reconciles what, and handovers.

- Cluster-wide with `--leader-elect`: two replicas, one leader; the standby takes over after
  SIGKILL of the leader (once the lease has expired, never before) and at once after SIGTERM (the
  leader releases the lease); a standby writes nothing.
- Namespace-restricted beside cluster-wide: the restricted operator's marker Lease keeps the
  cluster-wide one out of its namespace; SIGTERM deletes the marker and hands the namespace back
  at once, SIGKILL leaves the marker to expire and the cluster-wide operator takes the namespace
  back when it does, with no further event on the Lease.
- A restricted operator runs with the namespaced Role of the Helm chart alone.

Cluster-wide operators run as the chart's ServiceAccount bound to the chart's roles too (rendered
with `helm template`), so these tests also prove those roles suffice. Who reconciled what is read
from each process's `dynamo_operator_reconcile_total{namespace=...}`; timing is read from the
Leases' own timestamps (and the operators' log timestamps, on the same host), never from a
stopwatch.
"""

from __future__ import annotations

import contextlib
import copy
import json
import subprocess
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio.to_thread
import kr8s
import pytest
import yaml

from e2e.localcluster.ports import free_port
from e2e.support import chart, kwok_only
from e2e.support.graphs import World, is_converged, recorded, small_graph
from e2e.support.kinds import GRAPH, RBAC_KINDS
from e2e.support.namespaces import scratch_namespace
from e2e.support.operator_process import OperatorProcess, start_operator
from e2e.support.polling import eventually
from manager.runtime import LEASE, SECRET, SERVICE_ACCOUNT, ResourceKind
from manager.runtime.client import NotFound, RestClient
from webhooks import (
    OPERATOR_NAMESPACE_LABEL,
    VALIDATING_WEBHOOK_CONFIGURATION,
    UrlTarget,
    build_validating_webhook_configuration,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MARKER = "dynamo-operator-namespace-scope"
ELECTION = "dynamo.nvidia.com"
VERSION = "e2e-1.2.3"
OPERATOR_SERVICE_ACCOUNT = "dynamo-operator-controller-manager"
LEASE_DURATION = timedelta(seconds=15)
"""The leader-election lease duration (controller-runtime's default, which the operator keeps)."""
READY_TIMEOUT = 60.0


# -- processes --------------------------------------------------------------------------------


class Launcher:
    """Starts operator processes for one test and stops whatever is left when it ends."""

    def __init__(self, kubeconfig: Path, log_dir: Path) -> None:
        self.kubeconfig = kubeconfig
        self.log_dir = log_dir
        self.processes: list[OperatorProcess] = []

    def start(
        self,
        *arguments: str,
        name: str,
        kubeconfig: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> OperatorProcess:
        process = start_operator(
            kubeconfig or self.kubeconfig, self.log_dir, *arguments, name=name, env=env
        )
        self.processes.append(process)
        return process

    def stop_all(self) -> None:
        """SIGTERM what still runs, SIGKILL what does not end; every process is ended even when
        ending another one failed."""
        with contextlib.ExitStack() as stack:
            for process in self.processes:
                stack.callback(process.kill)  # a no-op once the process has exited
                stack.callback(_stop_quietly, process)


def _stop_quietly(process: OperatorProcess) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.stop(timeout=30)


@pytest.fixture
def launcher(kubeconfig: Path, installed_crds: list[Any], tmp_path: Path) -> Iterator[Launcher]:
    launcher = Launcher(kubeconfig, tmp_path)
    try:
        yield launcher
    finally:
        launcher.stop_all()


async def ready(*operators: OperatorProcess) -> None:
    for operator in operators:
        await anyio.to_thread.run_sync(operator.wait_ready, READY_TIMEOUT)


async def stop(operator: OperatorProcess) -> int:
    """SIGTERM, and the exit code once the process has shut down cleanly."""
    return await anyio.to_thread.run_sync(operator.stop)


async def kill(operator: OperatorProcess) -> None:
    await anyio.to_thread.run_sync(operator.kill)


def reconciles(operator: OperatorProcess, namespace: str) -> float:
    """How many reconciles this process ran for objects of `namespace` (0 when none)."""
    return operator.metric_sum("dynamo_operator_reconcile_total", namespace=namespace)


def successful_writes(operator: OperatorProcess) -> float:
    """Mutating requests the API server accepted from this process."""
    return sum(
        value
        for (sample, labels), value in operator.metrics().items()
        if sample == "rest_client_requests_total"
        and dict(labels).get("method") != "GET"
        and dict(labels).get("code", "").startswith("2")
    )


def refused(operator: OperatorProcess) -> float:
    """Requests the API server answered 403 Forbidden (while the process runs): RBAC denials,
    and also writes into a namespace being deleted (another test's, for a cluster-wide one)."""
    return operator.metric_sum("rest_client_requests_total", code="403")


def rbac_denials(operator: OperatorProcess) -> list[str]:
    """Logged refusals by the authorizer: `... is forbidden: User "..." cannot <verb> ...`."""
    return [
        line for line in operator.log_path.read_text().splitlines() if "is forbidden: User " in line
    ]


async def until(description: str, predicate: Callable[[], bool]) -> None:
    async def probe() -> bool:
        return predicate()

    await eventually(description, probe, within=60)


async def successful(world: World, name: str, *operators: OperatorProcess) -> dict[str, Any]:
    """The graph once `successful` for its latest generation; fails at once when one of
    `operators` exited or was refused a request (a missing permission never converges)."""

    async def probe() -> dict[str, Any] | None:
        for operator in operators:
            assert operator.process.poll() is None, f"operator exited:\n{operator.tail()}"
            assert not rbac_denials(operator), rbac_denials(operator)[:3]
        graph = await world.get(GRAPH, name)
        return graph if graph is not None and is_converged(graph) else None

    return await eventually(f"DGD {world.namespace}/{name} successful", probe)


async def emitted(world: World, graph: str, reason: str) -> int:
    """How many times an Event of `reason` was emitted for the graph (repeats are counted on
    one Event)."""
    return sum(event.get("count") or 1 for event in await world.events(graph, reason=reason))


def is_leader(operator: OperatorProcess) -> bool:
    """What the process reports in `leader_election_master_status{name=<the lease>}`."""
    key = ("leader_election_master_status", (("name", ELECTION),))
    return operator.metrics().get(key) == 1


def election_identity(operator: OperatorProcess) -> str | None:
    """The holder identity this process competes as (it logs it before its first try)."""
    for record in operator.logs():
        if record.get("msg") == "attempting to acquire leader lease":
            return str(record["identity"])
    return None


def logged(operator: OperatorProcess, message: str, **keys: str) -> list[dict[str, Any]]:
    return [
        record
        for record in operator.logs()
        if record.get("msg") == message and all(record.get(k) == v for k, v in keys.items())
    ]


# -- the API ----------------------------------------------------------------------------------


@pytest.fixture
def rest(api: Any) -> RestClient:
    return RestClient.for_api(api)


@pytest.fixture
def other_namespace(kr8s_api: kr8s.Api) -> Iterator[str]:
    with scratch_namespace(kr8s_api, "operator-modes-b") as name:
        yield name


async def read_lease(rest: RestClient, namespace: str, name: str) -> dict[str, Any] | None:
    try:
        return await rest.get(LEASE, namespace, name)
    except NotFound:
        return None


def holder(lease: Mapping[str, Any] | None) -> str:
    return str(((lease or {}).get("spec") or {}).get("holderIdentity") or "")


def moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def expiry(lease: Mapping[str, Any]) -> datetime:
    spec = lease["spec"]
    return moment(spec["renewTime"]) + timedelta(seconds=spec["leaseDurationSeconds"])


# -- credentials from the chart's RBAC ----------------------------------------------------------

CLUSTER_WIDE = {"webhook": {"enabled": False}, "metricsService": {"enabled": False}}
"""The chart's RBAC for a cluster-wide operator run with neither webhooks nor secure metrics (as
these tests run it): the manager ClusterRole and the leader-election Role."""
RESTRICTED = {**CLUSTER_WIDE, "namespaceRestriction": {"enabled": True}}
"""... and for a namespace-restricted one: the namespaced manager Role alone."""
RESTRICTED_WITH_WEBHOOKS = {
    "namespaceRestriction": {"enabled": True},
    "metricsService": {"enabled": False},
}
"""... with webhooks and operator-managed certificates: plus the certificate Secret's Role and the
CA injection's ClusterRole."""


class Credentials:
    """The chart's ServiceAccount and RBAC for given values, and a kubeconfig with its token."""

    def __init__(self, rest: RestClient, admin_kubeconfig: Path, directory: Path) -> None:
        self.rest = rest
        self.admin_kubeconfig = admin_kubeconfig
        self.directory = directory
        self.cluster_objects: list[tuple[ResourceKind, str]] = []

    async def kubeconfig(self, release_namespace: str, values: Mapping[str, Any]) -> Path:
        """Apply what `helm install dynamo-operator --namespace <release_namespace>` with
        `values` renders of RBAC (the ServiceAccount, roles and bindings; cluster-scoped ones
        renamed for this test and removed after it), and write a kubeconfig that authenticates
        as that ServiceAccount."""
        objects = chart.render(
            release="dynamo-operator", namespace=release_namespace, values=values
        )
        [account] = chart.of_kind(objects, "ServiceAccount")
        assert account["metadata"]["name"] == OPERATOR_SERVICE_ACCOUNT
        await self.rest.create(SERVICE_ACCOUNT, account, field_manager="e2e")
        for document in chart.of_kind(objects, *RBAC_KINDS):
            await self._create(document, suffix=release_namespace)
        return self._write_kubeconfig(release_namespace, await self._token(release_namespace))

    async def _create(self, document: dict[str, Any], suffix: str) -> None:
        body = copy.deepcopy(document)
        kind = RBAC_KINDS[body["kind"]]
        if not kind.namespaced:
            body["metadata"]["name"] = f"{body['metadata']['name']}-{suffix}"
        if "roleRef" in body and body["roleRef"]["kind"] == "ClusterRole":
            body["roleRef"]["name"] = f"{body['roleRef']['name']}-{suffix}"
        await self.rest.create(kind, body, field_manager="e2e")
        if not kind.namespaced:
            self.remove_later(kind, body["metadata"]["name"])

    async def _token(self, namespace: str) -> str:
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
        path = SERVICE_ACCOUNT.object_path(namespace, OPERATOR_SERVICE_ACCOUNT, "token")
        response = await self.rest.transport.request(
            "POST", path, body=json.dumps(request).encode(), content_type="application/json"
        )
        assert response.status == 201, response.body
        return str(json.loads(response.body)["status"]["token"])

    def _write_kubeconfig(self, namespace: str, token: str) -> Path:
        admin = yaml.safe_load(self.admin_kubeconfig.read_text())
        context = next(
            c["context"] for c in admin["contexts"] if c["name"] == admin["current-context"]
        )
        cluster = next(c["cluster"] for c in admin["clusters"] if c["name"] == context["cluster"])
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "e2e", "cluster": cluster}],
            "users": [{"name": "operator", "user": {"token": token}}],
            "contexts": [
                {
                    "name": "operator",
                    "context": {"cluster": "e2e", "user": "operator", "namespace": namespace},
                }
            ],
            "current-context": "operator",
        }
        path = self.directory / f"kubeconfig-{namespace}-{uuid.uuid4().hex[:6]}"
        path.write_text(yaml.safe_dump(config))
        return path

    def remove_later(self, kind: ResourceKind, name: str) -> None:
        """Delete this cluster-scoped object when the test ends."""
        self.cluster_objects.append((kind, name))

    async def remove(self) -> None:
        for kind, name in reversed(self.cluster_objects):
            with contextlib.suppress(NotFound):
                await self.rest.delete(kind, None, name)


def chart_discovery_flag(release_namespace: str) -> str:
    """The chart's `--discovery-cluster-role-name` (cluster-wide), naming its ClusterRole as
    `Credentials` renamed it for the release in `release_namespace`."""
    return (
        f"--discovery-cluster-role-name=dynamo-operator-k8s-service-discovery-{release_namespace}"
    )


@pytest.fixture
async def credentials(
    rest: RestClient, kubeconfig: Path, tmp_path: Path
) -> AsyncIterator[Credentials]:
    credentials = Credentials(rest, kubeconfig, tmp_path)
    try:
        yield credentials
    finally:
        await credentials.remove()


# -- cluster-wide, leader-elected ---------------------------------------------------------


@kwok_only.PODS_READY
async def test_one_of_two_replicas_leads_and_the_standby_takes_over(
    rest: RestClient, namespace: str, credentials: Credentials, launcher: Launcher
) -> None:
    world = World(rest, namespace)
    config = await credentials.kubeconfig(
        namespace,
        {**CLUSTER_WIDE, "controllerManager": {"leaderElection": {"namespace": namespace}}},
    )
    elect = (
        "--leader-elect",
        f"--leader-election-namespace={namespace}",
        chart_discovery_flag(namespace),
    )
    first = launcher.start(*elect, name="replica-1", kubeconfig=config)
    second = launcher.start(*elect, name="replica-2", kubeconfig=config)
    await ready(first, second)  # both: a standby is ready before it leads

    async def one_leader() -> tuple[OperatorProcess, OperatorProcess] | None:
        leaders = [replica for replica in (first, second) if is_leader(replica)]
        lease = await read_lease(rest, namespace, ELECTION)
        if len(leaders) != 1 or holder(lease) != election_identity(leaders[0]):
            return None
        return leaders[0], second if leaders[0] is first else first

    leader, standby = await eventually("one leader", one_leader, within=60)
    await world.create(GRAPH, small_graph("before-failover"))
    await successful(world, "before-failover", leader, standby)
    assert reconciles(leader, namespace) > 0
    assert reconciles(standby, namespace) == 0
    assert successful_writes(standby) == 0, "a standby writes nothing"

    # SIGKILL: the lease is left to expire; the standby takes it once it has, not before.
    async with recorded(rest, LEASE, namespace) as versions:
        before = await read_lease(rest, namespace, ELECTION)
        await kill(leader)

        async def standby_leads() -> dict[str, Any] | None:
            lease = await read_lease(rest, namespace, ELECTION)
            led = is_leader(standby) and holder(lease) == election_identity(standby)
            return lease if led else None

        taken = await eventually("the standby leads", standby_leads, within=90)
    killed = [v for v in (before, *versions) if v and holder(v) == election_identity(leader)]
    last_renewal = max(moment(v["spec"]["renewTime"]) for v in killed)
    acquired = moment(taken["spec"]["acquireTime"])
    assert acquired >= last_renewal + LEASE_DURATION, "taken before the killed leader's expired"
    # The standby times the lease from when it saw the last renewal and tries every 2 s
    # (jittered up to 4.4 s): well within a second lease duration.
    assert acquired <= last_renewal + 2 * LEASE_DURATION
    leader = standby
    await world.create(GRAPH, small_graph("after-failover"))
    await successful(world, "after-failover", leader)
    assert reconciles(leader, namespace) > 0

    # The killed replica comes back, as a standby.
    standby = launcher.start(*elect, name="replica-1-restarted", kubeconfig=config)
    await ready(standby)
    assert not is_leader(standby)
    assert holder(await read_lease(rest, namespace, ELECTION)) == election_identity(leader)

    # SIGTERM: the leader drains and releases the lease (empty holder); the standby takes it
    # at its next try, long before the stopped leader's last renewal would have expired.
    async with recorded(rest, LEASE, namespace) as versions:
        before = await read_lease(rest, namespace, ELECTION)
        assert reconciles(standby, namespace) == 0
        assert successful_writes(standby) == 0, "a standby writes nothing"
        assert await stop(leader) == 0

        async def restarted_leads() -> dict[str, Any] | None:
            lease = await read_lease(rest, namespace, ELECTION)
            led = is_leader(standby) and holder(lease) == election_identity(standby)
            return lease if led else None

        taken = await eventually("the restarted replica leads", restarted_leads, within=60)
    assert any(holder(v) == "" for v in versions), "the leader released its lease on SIGTERM"
    stopped = [v for v in (before, *versions) if v and holder(v) == election_identity(leader)]
    last_renewal = max(moment(v["spec"]["renewTime"]) for v in stopped)
    assert moment(taken["spec"]["acquireTime"]) < last_renewal + LEASE_DURATION
    await until("the new leader reconciles", lambda: reconciles(standby, namespace) > 0)


# -- namespace-restricted beside cluster-wide ---------------------------------------------


@kwok_only.PODS_READY
async def test_a_restricted_operator_keeps_its_namespace_until_it_stops(
    rest: RestClient,
    namespace: str,
    other_namespace: str,
    credentials: Credentials,
    launcher: Launcher,
) -> None:
    a, b = namespace, other_namespace
    in_a, in_b = World(rest, a), World(rest, b)
    restricted_flags = (f"--restrictedNamespace={a}", f"--operator-version={VERSION}")
    restricted = launcher.start(*restricted_flags, name="restricted")
    await ready(restricted)

    # The marker, as `kubectl get lease -A --field-selector metadata.name=...` shows it: live
    # from its first write (renewTime set on create).
    markers, _ = await rest.list_all(LEASE, None, field_selector=f"metadata.name={MARKER}")
    [marker] = [m for m in markers if m["metadata"]["namespace"] == a]
    assert marker["spec"]["holderIdentity"] == f"namespace-restricted-operator-{VERSION}"
    assert marker["spec"]["leaseDurationSeconds"] == 30
    assert marker["spec"].get("renewTime"), "the marker is live from its first write"
    assert moment(marker["spec"]["renewTime"]) >= moment(marker["spec"]["acquireTime"])

    config = await credentials.kubeconfig(b, CLUSTER_WIDE)
    cluster_wide = launcher.start(chart_discovery_flag(b), name="cluster-wide", kubeconfig=config)
    await ready(cluster_wide)
    assert logged(cluster_wide, CLAIMED, namespace=a)

    await in_a.create(GRAPH, small_graph("in-a"))
    await in_b.create(GRAPH, small_graph("in-b"))
    await successful(in_a, "in-a", restricted, cluster_wide)
    await successful(in_b, "in-b", restricted, cluster_wide)
    assert reconciles(restricted, a) > 0
    assert reconciles(cluster_wide, b) > 0
    assert reconciles(cluster_wide, a) == 0
    assert reconciles(restricted, b) == 0

    # SIGTERM: the marker is deleted and the cluster-wide operator takes the namespace back at
    # once, reconciling a change made after the restricted operator stopped.
    assert await stop(restricted) == 0
    assert await read_lease(rest, a, MARKER) is None
    await in_a.patch(GRAPH, "in-a", {"spec": {"envs": _envs("stopped")}})
    await successful(in_a, "in-a", cluster_wide)
    assert reconciles(cluster_wide, a) > 0
    await until_emitted(in_a, "in-a", "NamespaceTakenBack", 1)

    # Back again, with a short marker: the cluster-wide operator keeps out of the namespace
    # again and says so on the graph.
    quick = ("--namespace-scope-lease-duration=6s", "--namespace-scope-lease-renew-interval=2s")
    restricted = launcher.start(*restricted_flags, *quick, name="restricted-again")
    await ready(restricted)
    await until_emitted(in_a, "in-a", "NamespaceHandedOver", 1)
    assert len(logged(cluster_wide, CLAIMED, namespace=a)) == 2
    written = await read_lease(rest, a, MARKER)
    assert written is not None

    async def renewed() -> dict[str, Any] | None:
        lease = await read_lease(rest, a, MARKER)
        current = (lease or {}).get("metadata", {}).get("resourceVersion")
        return lease if current != written["metadata"]["resourceVersion"] else None

    await eventually("the marker renewed", renewed, within=30)
    await until("the restricted operator reconciles", lambda: reconciles(restricted, a) > 0)

    # SIGKILL: the marker stays; the cluster-wide operator notices its expiry by time (nothing
    # writes the Lease any more) and then reconciles what changed meanwhile.
    taken_before = reconciles(cluster_wide, a)
    await kill(restricted)
    left = await read_lease(rest, a, MARKER)
    assert left is not None
    assert holder(left) == f"namespace-restricted-operator-{VERSION}"
    patched = await in_a.patch(GRAPH, "in-a", {"spec": {"envs": _envs("killed")}})

    graph = await successful(in_a, "in-a", cluster_wide)
    assert graph["metadata"]["generation"] == patched["metadata"]["generation"]
    assert reconciles(cluster_wide, a) > taken_before
    unchanged = await read_lease(rest, a, MARKER)
    assert unchanged is not None
    assert unchanged["metadata"]["resourceVersion"] == left["metadata"]["resourceVersion"]
    released = logged(cluster_wide, RELEASED, namespace=a)
    assert len(released) == 2
    assert moment(released[-1]["ts"]) >= expiry(left), "taken back before the marker expired"
    await until_emitted(in_a, "in-a", "NamespaceTakenBack", 2)
    assert await emitted(in_a, "in-a", "NamespaceHandedOver") == 1


CLAIMED = "namespace claimed by a namespace-restricted operator"
RELEASED = "namespace released by its namespace-restricted operator"


def _envs(marker: str) -> list[dict[str, str]]:
    return [{"name": "HF_HOME", "value": "/models/hf"}, {"name": "E2E_CHANGE", "value": marker}]


async def until_emitted(world: World, graph: str, reason: str, times: int) -> None:
    async def probe() -> bool:
        return await emitted(world, graph, reason) == times

    await eventually(f"{reason} emitted {times} times on {graph}", probe, within=60)


# -- namespace-restricted, with the namespaced Role alone ---------------------------------


@kwok_only.PODS_READY
async def test_a_restricted_operator_needs_only_the_namespaced_role(
    rest: RestClient, namespace: str, credentials: Credentials, launcher: Launcher
) -> None:
    world = World(rest, namespace)
    config = await credentials.kubeconfig(namespace, RESTRICTED)
    operator = launcher.start(
        f"--restrictedNamespace={namespace}", name="role-only", kubeconfig=config
    )
    await ready(operator)

    await world.create(GRAPH, small_graph("role-only"))
    await successful(world, "role-only", operator)

    assert reconciles(operator, namespace) > 0
    assert refused(operator) == 0
    assert await stop(operator) == 0
    assert await read_lease(rest, namespace, MARKER) is None, "the marker is deleted on stop"
    assert rbac_denials(operator) == []
    assert "orbidden" not in operator.log_path.read_text()


async def test_a_restricted_operator_injects_its_ca_into_its_own_webhook_configuration(
    rest: RestClient, namespace: str, credentials: Credentials, launcher: Launcher
) -> None:
    """With webhooks on and operator-managed certificates, the restricted operator needs the
    Role plus the chart's webhook-certificate Role and CA-injection ClusterRole: it keeps its
    certificate Secret in its namespace and injects its CA into the configuration labelled with
    that namespace, the one selecting only it (the chart's name for it: the ClusterRole may
    patch that one only).
    (No admission call here: the certificate names the in-cluster Service, not 127.0.0.1.)"""
    config = await credentials.kubeconfig(namespace, RESTRICTED_WITH_WEBHOOKS)
    port = free_port()
    configuration = build_validating_webhook_configuration(
        UrlTarget(f"https://127.0.0.1:{port}"),
        name=f"dynamo-operator-validating-{namespace}",
        operator_namespace=namespace,
        namespace_selector={"matchLabels": {"kubernetes.io/metadata.name": namespace}},
    )
    await rest.create(VALIDATING_WEBHOOK_CONFIGURATION, configuration, field_manager="e2e")
    credentials.remove_later(VALIDATING_WEBHOOK_CONFIGURATION, configuration["metadata"]["name"])
    assert configuration["metadata"]["labels"] == {OPERATOR_NAMESPACE_LABEL: namespace}

    operator = launcher.start(
        f"--restrictedNamespace={namespace}",
        "--enable-webhooks",
        f"--webhook-port={port}",
        name="webhooks",
        kubeconfig=config,
        env={"POD_NAMESPACE": namespace},  # the operator's own namespace, as in its Pod
    )
    await ready(operator)  # ready includes the webhook server serving its certificate
    secret = await rest.get(SECRET, namespace, "webhook-server-cert")

    async def injected() -> bool:
        live = await rest.get(
            VALIDATING_WEBHOOK_CONFIGURATION, None, configuration["metadata"]["name"]
        )
        bundles = {webhook["clientConfig"].get("caBundle") for webhook in live["webhooks"]}
        return bundles == {secret["data"]["ca.crt"]}

    await eventually("the CA injected", injected, within=60)
    assert refused(operator) == 0
    assert rbac_denials(operator) == []
