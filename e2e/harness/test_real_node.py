"""The real node: Pods really run (containerd, runc, CNI), probes are really sent, Services really
route (kube-proxy iptables rules), a Pod's service-account token really authenticates it through
the ``kubernetes`` Service, and stopping the node gives the host back as it was.

kwok would mark every one of these Pods Ready and Succeeded without running anything; each test
checks something only a running container produces (a log line, an answer, a probe failure).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kr8s.objects import Event, Node, Pod, Service

from e2e.localcluster import is_condition_true, wait_for
from e2e.localcluster.realnode import host_network
from e2e.localcluster.realnode.host_cleanup import kubepods_cgroups, pids_with_argument
from e2e.localcluster.realnode.node_config import BRIDGE
from e2e.localcluster.realnode.node_teardown import HostState, leftovers
from e2e.localcluster.realnode.real_node import RealNode
from e2e.support.real_node import PROBE_IMAGE, RealNodeCluster

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]


def probe_container(name: str, *args: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "image": PROBE_IMAGE,
        "imagePullPolicy": "Never",
        "args": list(args),
        **extra,
    }


def create_pod(
    real_node: RealNodeCluster,
    namespace: str,
    name: str,
    containers: list[dict[str, Any]],
    **spec: Any,
) -> Pod:
    pod = Pod(
        {
            "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
            "spec": {
                **real_node.pod_placement(),
                "terminationGracePeriodSeconds": 1,
                "containers": containers,
                **spec,
            },
        },
        api=real_node.api,
    )
    pod.create()
    return pod


def pod_condition(pod: Pod, condition: str) -> bool:
    pod.refresh()
    return is_condition_true(pod.raw, condition)


def finished(pod: Pod) -> str | None:
    pod.refresh()
    phase = pod.raw.get("status", {}).get("phase")
    return phase if phase in ("Succeeded", "Failed") else None


def probe_failure(real_node: RealNodeCluster, namespace: str, pod: str) -> str | None:
    """The message of the kubelet's Unhealthy Event for ``pod``, once there is one."""
    for event in Event.list(namespace=namespace, api=real_node.api):
        involved = event.raw.get("involvedObject", {})
        if event.raw.get("reason") == "Unhealthy" and involved.get("name") == pod:
            return str(event.raw.get("message", ""))
    return None


def serve_pod(real_node: RealNodeCluster, namespace: str, name: str, probe_port: int) -> Pod:
    readiness = {"httpGet": {"path": "/healthz", "port": probe_port}, "periodSeconds": 1}
    container = probe_container(
        name, "serve", "8080", ports=[{"containerPort": 8080}], readinessProbe=readiness
    )
    return create_pod(real_node, namespace, name, [container])


def test_a_pod_is_ready_only_when_its_readiness_probe_answers(
    real_node: RealNodeCluster,
) -> None:
    namespace = real_node.create_namespace("probes")
    ready = serve_pod(real_node, namespace, "web", probe_port=8080)
    # Nothing listens on 9090 in this one: a real kubelet never sees its probe succeed.
    unready = serve_pod(real_node, namespace, "wrong-port", probe_port=9090)

    wait_for("web Ready through its probe", lambda: pod_condition(ready, "Ready"))
    assert ready.raw["spec"]["nodeName"] == real_node.node_name
    assert ready.raw["status"]["podIP"].startswith("10.88.")
    # The apiserver fetched this from the kubelet: the container's own output.
    assert "serving on [::]:8080" in real_node.pod_logs(namespace, "web")
    failure = wait_for(
        "the kubelet's report of wrong-port's failed probe",
        lambda: probe_failure(real_node, namespace, "wrong-port"),
    )
    assert "Readiness probe failed" in failure
    assert ":9090/healthz" in failure
    assert not pod_condition(unready, "Ready")
    assert unready.raw["status"]["phase"] == "Running"


def test_a_pod_authenticates_to_the_apiserver_through_the_kubernetes_service(
    real_node: RealNodeCluster,
) -> None:
    namespace = real_node.create_namespace("in-cluster")
    pod = create_pod(
        real_node,
        namespace,
        "whoami",
        [probe_container("whoami", "whoami")],
        restartPolicy="Never",
    )
    assert wait_for("whoami to finish", lambda: finished(pod)) == "Succeeded"
    assert real_node.pod_logs(namespace, "whoami").strip() == (
        f"authenticated as system:serviceaccount:{namespace}:default via "
        "https://10.96.0.1:443/apis/authentication.k8s.io/v1/selfsubjectreviews"
    )


def test_a_cluster_ip_service_answers_from_a_pod_and_from_the_host(
    real_node: RealNodeCluster,
) -> None:
    namespace = real_node.create_namespace("services")
    web = serve_pod(real_node, namespace, "web", probe_port=8080)
    service = Service(
        {
            "metadata": {"name": "web", "namespace": namespace},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]},
        },
        api=real_node.api,
    )
    service.create()
    cluster_ip = service.raw["spec"]["clusterIP"]
    wait_for("web Ready", lambda: pod_condition(web, "Ready"))
    # kube-proxy writes the Service's rules only after the endpoint slice lists the Ready pod; the
    # host goes through the same rules, so once it is answered a pod's one-shot request can be.
    answer = wait_for("the host answered through the ClusterIP", lambda: http_body(cluster_ip))
    assert answer == b"hello from web\n"

    client = create_pod(
        real_node,
        namespace,
        "client",
        [probe_container("get", "get", f"http://{cluster_ip}/")],
        restartPolicy="Never",
    )
    assert wait_for("client to finish", lambda: finished(client)) == "Succeeded"
    assert real_node.pod_logs(namespace, "client") == "hello from web\n"


def http_body(address: str) -> bytes | None:
    try:
        with urllib.request.urlopen(f"http://{address}/", timeout=2) as reply:
            return bytes(reply.read())
    except OSError:
        return None


def test_stopping_the_node_removes_it_and_gives_the_host_back(
    real_node: RealNodeCluster,
) -> None:
    """Runs last in this module: it stops the fixture's node (the fixture's own stop is then a
    no-op). Pods still running on the node are deleted through the API first."""
    namespace = real_node.create_namespace("teardown")
    pod = serve_pod(real_node, namespace, "left-running", probe_port=8080)
    wait_for("left-running Ready", lambda: pod_condition(pod, "Ready"))
    socket = str(real_node.node.paths.containerd_socket)
    assert pids_with_argument(socket), "a containerd shim runs the Pod"

    real_node.node.stop()

    assert real_node.node.remaining == []
    names = [node.name for node in Node.list(api=real_node.api)]
    assert real_node.node_name not in names
    assert sorted(names) == ["kwok-node-0", "kwok-node-1"]
    assert list(Pod.list(namespace=namespace, api=real_node.api)) == []
    assert pids_with_argument(socket) == []
    assert host_network.read_sysctls(tuple(real_node.sysctls_before)) == real_node.sysctls_before
    assert host_network.owned_iptables_chains() == []
    assert not host_network.link_exists(BRIDGE)
    assert not Path("/var/lib/realnode").exists()
    assert not Path("/run/realnode").exists()


# A harness of its own, killed with SIGKILL once its node runs a Pod: nothing stops the node.
ROOT = Path(__file__).resolve().parents[2]
_HARNESS = """
import sys, time
from pathlib import Path
from e2e.localcluster import LocalCluster
from e2e.localcluster.build import Binaries, NodeBinaries
from e2e.localcluster.realnode.real_node import RealNode
cluster = LocalCluster.attach(Path(sys.argv[1]), Binaries(Path(), Path(), Path(), Path()))
RealNode(cluster, NodeBinaries(Path(sys.argv[2]))).start()
print("started", flush=True)
time.sleep(600)
"""


def test_a_node_whose_harness_was_killed_is_torn_down_by_the_next_reap(
    real_node: RealNodeCluster,
) -> None:
    real_node.node.stop()  # one node per machine: the fixture's makes room (a no-op if stopped)
    harness = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _HARNESS,
            str(real_node.cluster.workdir),
            str(real_node.node.binaries.directory),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,  # `python -c` puts the working directory first on sys.path: e2e is importable
    )
    try:
        assert harness.stdout is not None
        assert harness.stdout.readline().strip() == "started"
        namespace = real_node.create_namespace("killed")
        pod = serve_pod(real_node, namespace, "orphan", probe_port=8080)
        wait_for("orphan Ready", lambda: pod_condition(pod, "Ready"))
        paths = real_node.node.paths
        state = HostState.load(paths)
        assert state is not None
        os.kill(harness.pid, signal.SIGKILL)
    finally:
        harness.kill()
        harness.wait()

    # The daemons died with their harness; the Pod's shim and container did not.
    socket = str(paths.containerd_socket)
    assert pids_with_argument(socket)
    assert kubepods_cgroups()
    assert host_network.link_exists(BRIDGE)
    remains = leftovers(paths, state)
    assert any(item.startswith("iptables chain") for item in remains), json.dumps(remains)

    assert RealNode.reap_abandoned() is True

    assert leftovers(paths, state) == []
    assert host_network.read_sysctls(tuple(real_node.sysctls_before)) == real_node.sysctls_before
    assert pids_with_argument(socket) == []
