"""One real worker node beside kwok's fake ones: containerd, the kubelet and kube-proxy.

Opt-in (``hack/local-cluster up --real-node``, the ``real_node`` e2e fixture), for a cluster
created with ``in_cluster=True``. Pods that tolerate the ``realnode=true:NoSchedule`` taint and
select ``kubernetes.io/hostname: real-node`` (``pod_placement()``) run for real: images from
``import_image`` (nothing can be pulled here), real probes, logs, exec, service-account tokens,
ClusterIP Services through kube-proxy's iptables rules. Everything else stays on kwok.

The node is machine-wide (fixed ports, iptables, the ``rn0`` bridge, cgroups, sysctls), so a flock
(``host_cleanup.MachineLock``) admits one per machine. ``stop`` deletes the node's Pods through the
API, stops the daemons and undoes every host change (``node_teardown``); a node whose harness was
killed is torn down by the next ``start`` or by ``reap_abandoned``. Configuration: ``node_config``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from e2e.localcluster.build import NodeBinaries
from e2e.localcluster.controlplane.admin_client import ApiError
from e2e.localcluster.controlplane.cluster import LocalCluster
from e2e.localcluster.controlplane.kwok_nodes import node_is_ready
from e2e.localcluster.controlplane.pki import write_kubeconfig
from e2e.localcluster.processes import (
    ManagedProcess,
    StartupError,
    rss_bytes,
    start_process,
    wait_until,
)
from e2e.localcluster.realnode import host_network, node_config, node_teardown
from e2e.localcluster.realnode.host_cleanup import (
    MachineLock,
    RealNodeBusyError,
    pids_with_argument,
)
from e2e.localcluster.realnode.node_config import NODE_NAME, TAINT_KEY, NodePaths
from e2e.localcluster.realnode.node_teardown import HostState

_TIMEOUT = 120.0
_CONTAINERD = Path("/usr/bin/containerd")
_CTR = Path("/usr/bin/ctr")


def pod_placement() -> dict[str, Any]:
    """What a Pod spec needs to run on the real node (merge into ``spec``)."""
    return {
        "nodeSelector": {"kubernetes.io/hostname": NODE_NAME},
        "tolerations": [
            {"key": TAINT_KEY, "operator": "Equal", "value": "true", "effect": "NoSchedule"}
        ],
    }


@dataclass
class RealNode:
    cluster: LocalCluster
    binaries: NodeBinaries
    die_with_parent: bool = True
    paths: NodePaths = field(default_factory=NodePaths)
    processes: dict[str, ManagedProcess] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    remaining: list[str] = field(default_factory=list)
    """What ``stop`` could not remove from the host (empty after a clean stop)."""
    _lock: MachineLock = field(default_factory=MachineLock)
    _state: HostState | None = None

    name = NODE_NAME

    @property
    def node_ip(self) -> str:
        if self.cluster.node_ip is None:
            raise ValueError("a real node needs a cluster created with in_cluster=True")
        return self.cluster.node_ip

    @property
    def workdir(self) -> Path:
        """Logs (``logs/``), in the cluster's directory."""
        return self.cluster.workdir / "real-node"

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, *, wait_for_lock: float = 0.0) -> None:
        """Start containerd, the kubelet and kube-proxy; return once Pods can run on the node.

        Another real node on the machine fails this at once, or after ``wait_for_lock`` seconds
        of waiting for it to stop (parallel test workers take turns)."""
        if os.geteuid() != 0:
            raise StartupError("the real node needs root (containerd, iptables, mounts, cgroups)")
        began = time.monotonic()
        holder = f"pid {os.getpid()} ({' '.join(sys.argv)[:200]}), cluster {self.cluster.workdir}"
        self._lock.acquire(holder, wait=wait_for_lock)
        try:
            if node_teardown.has_remains(self.paths):
                # A previous node's harness was killed: clean up after it first.
                node_teardown.teardown(self.paths, HostState.load(self.paths))
            self._state = HostState.capture(holder)
            self._state.save(self.paths)
            self._start_all()
        except BaseException:
            self.stop()
            raise
        self.timings["total"] = time.monotonic() - began

    @property
    def sysctls_before(self) -> dict[str, str]:
        """The host's sysctls as this node found them: read under the machine's lock, so not
        those of another node that held the machine a moment before (stop restores these)."""
        if self._state is None:
            raise RuntimeError("the real node is not started")
        return dict(self._state.sysctls)

    def stop(self) -> None:
        """Delete the node's Pods, stop the daemons, undo every host change; see ``remaining``."""
        state = self._state or HostState.load(self.paths)
        self._delete_pods()
        for name in ("kube-proxy", "kubelet", "containerd"):
            if name in self.processes:
                self.processes.pop(name).stop()
        if not self._lock.held:
            # Attached from another process (`down`): the lock frees when the kubelet exits.
            self._lock.acquire(f"pid {os.getpid()} stopping the real node", wait=30.0)
        try:
            node_teardown.teardown(self.paths, state)
            self._delete_node_object()
            self.remaining = node_teardown.leftovers(self.paths, state)
        finally:
            self._lock.release()
            self._state = None

    @classmethod
    def attach(cls, cluster: LocalCluster, binaries: NodeBinaries) -> RealNode | None:
        """The node a previous process started, from its state file (for ``down``)."""
        node = cls(cluster, binaries, die_with_parent=False)
        state = HostState.load(node.paths)
        if state is None:
            return None
        node._state = state
        node.processes = {p.name: p for p in state.managed_processes()}
        return node

    @staticmethod
    def reap_abandoned(paths: NodePaths | None = None, *, wait: float = 10.0) -> bool:
        """Tear down what a killed harness's node left, unless a live node holds the lock.

        Waits up to ``wait`` seconds for the lock: the kernel kills a dead harness's kubelet (which
        holds it) a moment after the harness itself.
        """
        paths = paths or NodePaths()
        if not node_teardown.has_remains(paths):
            return False
        lock = MachineLock()
        try:
            lock.acquire(f"pid {os.getpid()} reaping an abandoned real node", wait=wait)
        except RealNodeBusyError:
            return False
        try:
            node_teardown.teardown(paths, HostState.load(paths))
        finally:
            lock.release()
        return True

    # -- what tests use ------------------------------------------------------------------------

    def import_image(self, tar: Path) -> str:
        """Import a docker-archive or OCI tar into the node's containerd (``ctr images import``),
        named as the archive names it (its RepoTags or index annotations); returns ctr's output.
        Pods then use it with ``imagePullPolicy: Never`` (or IfNotPresent)."""
        began = time.monotonic()
        result = subprocess.run(
            [*self._ctr(), "images", "import", str(tar)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        if result.returncode != 0:
            raise StartupError(f"ctr images import {tar} failed: {result.stderr[-2000:]}")
        self.timings[f"import {tar.name}"] = time.monotonic() - began
        return result.stdout

    def allow_plain_http_registry(self, host: str) -> None:
        """Let the node's containerd pull from ``host`` (``ip:port``, e.g. a registry Service's
        ClusterIP, which the host reaches through kube-proxy) over plain HTTP; takes effect at
        the next pull."""
        directory = self.paths.registry_hosts_dir / host
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "hosts.toml").write_text(node_config.registry_hosts_toml(host))

    def rss_bytes(self) -> dict[str, int]:
        """Resident memory of containerd, the kubelet, kube-proxy and all containerd shims."""
        sizes = {name: rss_bytes(p.pid) for name, p in self.processes.items()}
        shims = pids_with_argument(str(self.paths.containerd_socket))
        sizes["containerd-shims"] = sum(rss_bytes(pid) for pid in shims)
        return sizes

    # -- stages ----------------------------------------------------------------------------------

    def _start_all(self) -> None:
        began = time.monotonic()
        self._write_config()
        host_network.write_sysctls({"net.ipv4.ip_forward": "1"})
        containerd = self._start("containerd", node_config.containerd_argv(_CONTAINERD, self.paths))
        wait_until(containerd, "its socket", self._containerd_answers, timeout=_TIMEOUT)
        self.timings["containerd"] = time.monotonic() - began
        began = time.monotonic()
        for image in (self.binaries.pause_image, self.binaries.probe_image):
            self.import_image(image)
        self.timings["images"] = time.monotonic() - began
        began = time.monotonic()
        # The kubelet inherits the machine lock: a node outliving `up` keeps holding it.
        kubelet = self._start(
            "kubelet",
            node_config.kubelet_argv(self.binaries.kubelet, self.paths, node_ip=self.node_ip),
            pass_fds=(self._lock.fd,),
        )
        wait_until(kubelet, f"node {NODE_NAME} Ready", self._schedulable, timeout=_TIMEOUT)
        self.timings["kubelet"] = time.monotonic() - began
        began = time.monotonic()
        proxy = self._start(
            "kube-proxy", node_config.kube_proxy_argv(self.binaries.kube_proxy, self.paths)
        )
        healthz = f"http://127.0.0.1:{node_config.KUBE_PROXY_HEALTHZ_PORT}/healthz"
        wait_until(proxy, "/healthz", lambda: _http_ok(healthz), timeout=_TIMEOUT)
        self.timings["kube-proxy"] = time.monotonic() - began

    def _write_config(self) -> None:
        config = self.paths.config
        for directory in (config, self.paths.cni_conf_dir, self.workdir / "logs"):
            directory.mkdir(parents=True, exist_ok=True)
        pki = self.cluster.pki
        shutil.copyfile(pki.ca.cert, config / "ca.crt")
        kubelet_client = pki.issue_client_cert(
            config,
            "kubelet-client",
            common_name=f"system:node:{NODE_NAME}",
            organization="system:nodes",
        )
        pki.issue_serving_cert_for(
            config, "kubelet-serving", names=(NODE_NAME,), ips=(self.node_ip,)
        )
        proxy_client = pki.issue_client_cert(
            config, "kube-proxy-client", common_name="system:kube-proxy"
        )
        server = self.cluster.server
        write_kubeconfig(
            config / "kubelet.kubeconfig",
            server=server,
            pki=pki,
            client=kubelet_client,
            user=NODE_NAME,
        )
        write_kubeconfig(
            config / "kube-proxy.kubeconfig",
            server=server,
            pki=pki,
            client=proxy_client,
            user="kube-proxy",
        )
        files = {
            config / "containerd.toml": node_config.containerd_toml(self.paths),
            config / "kubelet.yaml": node_config.kubelet_config(self.paths, node_ip=self.node_ip),
            config / "kube-proxy.yaml": node_config.kube_proxy_config(self.paths),
            self.paths.cni_conf_dir / "10-realnode.conflist": node_config.cni_conflist(self.paths),
        }
        for path, text in files.items():
            path.write_text(text)

    def _start(
        self, name: str, argv: list[str | Path], pass_fds: tuple[int, ...] = ()
    ) -> ManagedProcess:
        process = start_process(
            name,
            argv,
            log_dir=self.workdir / "logs",
            die_with_parent=self.die_with_parent,
            pass_fds=pass_fds,
        )
        self.processes[name] = process
        if self._state is not None:
            self._state.processes[name] = {"pid": process.pid, "binary": str(process.binary)}
            self._state.save(self.paths)
        return process

    def _ctr(self) -> list[str]:
        return [str(_CTR), "--address", str(self.paths.containerd_socket), "--namespace", "k8s.io"]

    def _containerd_answers(self) -> bool:
        if not self.paths.containerd_socket.exists():
            return False
        result = subprocess.run([*self._ctr(), "version"], capture_output=True, check=False)
        return result.returncode == 0

    def _schedulable(self) -> bool:
        try:
            node = self.cluster.admin_client().get(f"/api/v1/nodes/{NODE_NAME}")
        except (OSError, ApiError):
            return False
        taints = node.get("spec", {}).get("taints") or []
        not_ready = any(t.get("key") == "node.kubernetes.io/not-ready" for t in taints)
        return node_is_ready(node) and not not_ready

    def _delete_pods(self) -> None:
        """Delete the node's Pods through the API and wait for the kubelet to stop them: a shim
        and its containers outlive containerd, so the kubelet must do it while it still runs."""
        kubelet = self.processes.get("kubelet")
        if kubelet is None or not kubelet.alive():
            return
        client = self.cluster.admin_client()
        selector = f"?fieldSelector=spec.nodeName%3D{NODE_NAME}"
        try:
            # Cordoned first: the controllers' replacements for the deleted Pods stay Pending
            # instead of landing here again (the wait below then ends as soon as they are gone).
            client.patch(f"/api/v1/nodes/{NODE_NAME}", {"spec": {"unschedulable": True}})
            pods = client.get(f"/api/v1/pods{selector}")["items"]
            for pod in pods:
                meta = pod["metadata"]
                path = f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}"
                try:
                    client.delete(path, {"gracePeriodSeconds": 1})
                except ApiError as error:
                    if error.status != 404:
                        raise
            deadline = time.monotonic() + 30
            while client.get(f"/api/v1/pods{selector}")["items"]:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        except (OSError, ApiError):
            return  # the API is gone: the teardown kills what is left
        node_teardown.wait_for_no_cgroup_processes(timeout=10)

    def _delete_node_object(self) -> None:
        # Already gone, or the control plane is stopped: nothing to do.
        with contextlib.suppress(OSError, ApiError):
            self.cluster.admin_client().delete(f"/api/v1/nodes/{NODE_NAME}")


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False
