"""The local control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok with
fake GPU nodes, and the LeaderWorkerSet CRD and controller, all processes on 127.0.0.1.

``start`` goes stage by stage and waits until each stage really serves, so a returned cluster can
take a Deployment at once. ``stop`` stops every process it started, by PID, in reverse order. The
state file lets ``hack/local-cluster down`` (another process) stop a cluster ``up`` started.

``create(..., in_cluster=True)`` (for a real node, ``realnode/real_node.py``) makes the apiserver
usable from
Pods: it listens on the node IP too, the ``kubernetes`` Service gets that endpoint, Pods get
service-account tokens, kubelets are authorized as nodes (see ``components.apiserver_argv``). The
default keeps everything on 127.0.0.1, as envtest does.
"""

from __future__ import annotations

import base64
import json
import shutil
import socket
import time
import urllib.request
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from e2e.localcluster.build import Binaries
from e2e.localcluster.controlplane import components, kwok_nodes, lws
from e2e.localcluster.controlplane.admin_client import AdminClient, insecure_health_ok
from e2e.localcluster.controlplane.audit import AUDIT_LOG, apiserver_audit_flags
from e2e.localcluster.controlplane.components import (
    KUBERNETES_SERVICE_IP,
    KUBERNETES_SERVICE_NAMES,
    Ports,
)
from e2e.localcluster.controlplane.crds import install_crds
from e2e.localcluster.controlplane.host_address import primary_ipv4
from e2e.localcluster.controlplane.pki import Pki, create_pki, load_pki, write_kubeconfig
from e2e.localcluster.processes import (
    ManagedProcess,
    rss_bytes,
    start_process,
    wait_until,
)

_STATE_FILE = "state.json"
# Generous: a loaded 2-core CI machine runs several of these at once.
_TIMEOUT = 120.0
_RESTARTABLE = frozenset({"kube-controller-manager", "kube-scheduler", "kwok", "lws-controller"})
"""Stateless controllers `restart_crashed` starts again; etcd and kube-apiserver are the
faults' own business."""


@dataclass
class LocalCluster:
    binaries: Binaries
    workdir: Path
    ports: Ports
    die_with_parent: bool = True
    with_lws: bool = True
    processes: dict[str, ManagedProcess] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    node_ip: str | None = None
    """Set in in-cluster mode: the host address the apiserver advertises to Pods."""
    audit: bool = False
    """The apiserver writes ServiceAccounts' requests to ``audit_log`` (see ``audit.py``)."""
    _launches: dict[str, tuple[list[str | Path], dict[str, str] | None]] = field(
        default_factory=dict
    )
    """How each process this object started was launched: `restart_crashed` launches it again."""

    @classmethod
    def create(
        cls,
        binaries: Binaries,
        workdir: Path,
        *,
        die_with_parent: bool,
        with_lws: bool = True,
        in_cluster: bool = False,
        audit: bool = False,
    ) -> LocalCluster:
        workdir.mkdir(parents=True, exist_ok=True)
        cluster = cls(binaries, workdir, Ports.pick_free(), die_with_parent, with_lws)
        if in_cluster:
            cluster.node_ip = primary_ipv4()
        cluster.audit = audit
        return cluster

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.ports.apiserver}"

    @property
    def kubeconfig(self) -> Path:
        return self.workdir / "kubeconfig"

    @property
    def audit_log(self) -> Path:
        return self.workdir / AUDIT_LOG

    @property
    def pki(self) -> Pki:
        return load_pki(self.workdir / "pki")

    def admin_client(self) -> AdminClient:
        return AdminClient(self.server, self.pki)

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> None:
        """Bring every component up; on any failure stop what was started and re-raise."""
        began = time.monotonic()
        try:
            self._start_all()
        except BaseException:
            self.stop()
            raise
        self.timings["total"] = time.monotonic() - began

    def stop(self) -> None:
        for name in reversed(list(self.processes)):
            self.processes[name].stop()
        self.processes.clear()
        shutil.rmtree(self.workdir / "etcd-data", ignore_errors=True)
        (self.workdir / _STATE_FILE).unlink(missing_ok=True)

    def restart_apiserver(self) -> None:
        """Stop kube-apiserver and start it again on the same port with the same etcd."""
        self.processes.pop("kube-apiserver").stop()
        self._start_apiserver()
        self._save_state()

    def restart_crashed(self) -> list[str]:
        """Start again each controller that exited (kube-controller-manager, kube-scheduler,
        kwok, lws-controller), as the kubelet restarts a crashed static pod; each appends to its
        log, which keeps why it exited. kube-scheduler exits on purpose when it finds its cache
        corrupted, which API server restarts in a row can do. The names restarted."""
        restarted = []
        for name, (argv, env) in self._launches.items():
            if name in _RESTARTABLE and not self.processes[name].alive():
                self.processes[name].stop()  # reaps it
                self._start(name, argv, env)
                restarted.append(name)
        return restarted

    def compact_etcd(self) -> int:
        """Compact etcd up to its current revision, so older resourceVersions are 410 Gone.

        The apiserver's watch cache keeps serving watches from its own recent history whatever etcd
        compacted, so the apiserver is restarted afterwards: its cache then starts at the compacted
        revision, and a watch or an exact list at an older resourceVersion gets 410, as it would in
        a long-running cluster. Returns the revision compacted to.
        """
        any_key = base64.b64encode(b"/").decode()
        header = self._etcd_call("/v3/kv/range", {"key": any_key, "limit": 1})["header"]
        revision = int(header["revision"])
        self._etcd_call("/v3/kv/compaction", {"revision": revision, "physical": True})
        self.restart_apiserver()
        return revision

    def is_serving(self) -> bool:
        return all(p.alive() for p in self.processes.values()) and self.admin_client().is_ok(
            "/readyz"
        )

    def rss_bytes(self) -> dict[str, int]:
        """Resident memory per component, read from /proc (for the startup report)."""
        sizes = {name: rss_bytes(process.pid) for name, process in self.processes.items()}
        return {name: size for name, size in sizes.items() if size}

    # -- state shared between `up` and `down` ---------------------------------------------------

    @classmethod
    def attach(cls, workdir: Path, binaries: Binaries) -> LocalCluster | None:
        """The cluster a previous process started in ``workdir``, if its state file exists."""
        try:
            state = json.loads((workdir / _STATE_FILE).read_text())
        except (OSError, ValueError):
            return None
        cluster = cls(binaries, workdir, Ports(**state["ports"]), die_with_parent=False)
        cluster.node_ip = state.get("node_ip")
        for name, entry in state["processes"].items():
            cluster.processes[name] = ManagedProcess(
                name, entry["pid"], Path(entry["binary"]), Path(entry["log"])
            )
        return cluster

    @staticmethod
    def remove_abandoned(parent: Path, prefix: str) -> list[Path]:
        """Delete work dirs under ``parent`` left by harnesses that were killed.

        Only a dir whose state file lists processes, none of them alive any more, counts as
        abandoned: a cluster still starting has no state file yet, and one stopping removes it.
        """
        removed = []
        for workdir in parent.glob(f"{prefix}*"):
            try:
                state = json.loads((workdir / _STATE_FILE).read_text())
            except (OSError, ValueError):
                continue
            processes = [
                ManagedProcess(name, entry["pid"], Path(entry["binary"]), Path(entry["log"]))
                for name, entry in state["processes"].items()
            ]
            if processes and not any(p.alive() for p in processes):
                shutil.rmtree(workdir, ignore_errors=True)
                removed.append(workdir)
        return removed

    def _save_state(self) -> None:
        state: dict[str, Any] = {
            "ports": self.ports.as_dict(),
            "processes": {
                name: {"pid": p.pid, "binary": str(p.binary), "log": str(p.log)}
                for name, p in self.processes.items()
            },
        }
        if self.node_ip is not None:
            state["node_ip"] = self.node_ip
        (self.workdir / _STATE_FILE).write_text(json.dumps(state, indent=2))

    # -- stages ----------------------------------------------------------------------------------

    def _start_all(self) -> None:
        (self.workdir / "logs").mkdir(exist_ok=True)
        if self.node_ip is None:
            pki = create_pki(self.workdir / "pki")
        else:
            pki = create_pki(
                self.workdir / "pki",
                apiserver_names=KUBERNETES_SERVICE_NAMES,
                apiserver_ips=(KUBERNETES_SERVICE_IP, self.node_ip),
            )
        write_kubeconfig(self.kubeconfig, server=self.server, pki=pki)
        self._start_etcd()
        self._start_apiserver()
        self._start_controllers_and_nodes(pki)
        if self.with_lws:
            self._start_lws(pki)

    def _start(
        self, name: str, argv: list[str | Path], env: dict[str, str] | None = None
    ) -> ManagedProcess:
        process = start_process(
            name,
            argv,
            log_dir=self.workdir / "logs",
            die_with_parent=self.die_with_parent,
            env=env,
        )
        self.processes[name] = process
        self._launches[name] = (argv, env)
        self._save_state()
        return process

    def _start_etcd(self) -> None:
        data_dir = self.workdir / "etcd-data"
        etcd = self._start("etcd", components.etcd_argv(self.binaries, self.ports, data_dir))
        health = f"http://127.0.0.1:{self.ports.etcd}/health"
        self.timings["etcd"] = wait_until(
            etcd, "/health", lambda: _http_ok(health), timeout=_TIMEOUT
        )

    def _start_apiserver(self) -> None:
        argv = components.apiserver_argv(
            self.binaries,
            self.ports,
            self.pki,
            self.workdir / "apiserver-certs",
            node_ip=self.node_ip,
        )
        if self.audit:
            argv = [*argv, *apiserver_audit_flags(self.workdir)]
        apiserver = self._start("kube-apiserver", argv)
        client = self.admin_client()
        self.timings["kube-apiserver"] = wait_until(
            apiserver, "/readyz", lambda: client.is_ok("/readyz"), timeout=_TIMEOUT
        ) + wait_until(
            apiserver,
            "the default namespace",
            lambda: client.is_ok("/api/v1/namespaces/default"),
            timeout=_TIMEOUT,
        )

    def _start_controllers_and_nodes(self, pki: Pki) -> None:
        # Started together: none of them needs another to come up.
        began = time.monotonic()
        manager = self._start(
            "kube-controller-manager",
            components.controller_manager_argv(self.binaries, self.ports, pki, self.kubeconfig),
        )
        scheduler = self._start(
            "kube-scheduler",
            components.scheduler_argv(self.binaries, self.ports, self.kubeconfig),
        )
        stages = kwok_nodes.write_stage_config(
            self.binaries.kwok_source, self.workdir / "kwok-stages.yaml"
        )
        kwok = self._start(
            "kwok",
            kwok_nodes.kwok_argv(
                self.binaries.kwok, kubeconfig=self.kubeconfig, stage_config=stages
            ),
        )
        client = self.admin_client()
        for name in kwok_nodes.node_names():
            client.create("/api/v1/nodes", kwok_nodes.node_manifest(name))
        for process, port in (
            (manager, self.ports.controller_manager),
            (scheduler, self.ports.scheduler),
        ):
            url = f"https://127.0.0.1:{port}/healthz"
            wait_until(process, "/healthz", partial(insecure_health_ok, url), timeout=_TIMEOUT)
        for name in kwok_nodes.node_names():
            # Schedulable = Ready and the controller-manager lifted the initial not-ready taint.
            wait_until(
                kwok,
                f"node {name} Ready and untainted",
                partial(_node_schedulable, client, name),
                timeout=_TIMEOUT,
            )
        self.timings["controllers-and-nodes"] = time.monotonic() - began

    def _start_lws(self, pki: Pki) -> None:
        began = time.monotonic()
        client = self.admin_client()
        install_crds(client, [lws.crd_document(self.binaries.lws_source)], timeout=_TIMEOUT)
        cert_dir = self.workdir / "lws-certs"
        lws.issue_webhook_cert(pki, cert_dir)
        config = lws.write_controller_config(
            self.workdir / "lws-config.json",
            cert_dir=cert_dir,
            webhook_port=self.ports.lws_webhook,
            metrics_port=self.ports.lws_metrics,
            health_port=self.ports.lws_health,
        )
        controller = self._start(
            "lws-controller",
            components.lws_controller_argv(self.binaries, config),
            env={"KUBECONFIG": str(self.kubeconfig)},
        )
        ready = f"http://127.0.0.1:{self.ports.lws_health}/readyz"
        wait_until(controller, "/readyz", lambda: _http_ok(ready), timeout=_TIMEOUT)
        wait_until(
            controller,
            "its webhook port",
            lambda: _port_open(self.ports.lws_webhook),
            timeout=_TIMEOUT,
        )
        ca_bundle = base64.b64encode(pki.ca.cert.read_bytes()).decode()
        for document in lws.webhook_configurations(
            self.binaries.lws_source, port=self.ports.lws_webhook, ca_bundle=ca_bundle
        ):
            plural = document["kind"].lower() + "s"
            client.create(f"/apis/admissionregistration.k8s.io/v1/{plural}", document)
        self.timings["lws"] = time.monotonic() - began

    def _etcd_call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.ports.etcd}{path}", data=json.dumps(body).encode()
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            result: dict[str, Any] = json.loads(reply.read())
            return result


def _node_schedulable(client: AdminClient, name: str) -> bool:
    node = client.get(f"/api/v1/nodes/{name}")
    taints = node.get("spec", {}).get("taints") or []
    not_ready = any(t.get("key") == "node.kubernetes.io/not-ready" for t in taints)
    return kwok_nodes.node_is_ready(node) and not not_ready


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
