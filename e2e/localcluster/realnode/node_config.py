"""The real node's configuration files: containerd, the CNI network, the kubelet and kube-proxy.

Pure rendering (paths in, text out); each setting that is there because of this machine kind says
so.
The Debian packages' own configuration (``/etc/containerd``, ``/etc/cni``) is never read or written:
every path is under the node's own directories.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

NODE_NAME = "real-node"
TAINT_KEY = "realnode"
POD_SUBNET = "10.88.0.0/16"
POD_GATEWAY = "10.88.0.1"
BRIDGE = "rn0"
PAUSE_IMAGE = "localhost/pause:local"
CNI_BIN_DIR = Path("/usr/lib/cni")
RUNC = Path("/usr/sbin/runc")
# Fixed ports (one real node per machine): kubelet API and healthz, kube-proxy healthz and metrics.
KUBELET_PORT = 10250
KUBELET_HEALTHZ_PORT = 10248
KUBE_PROXY_HEALTHZ_PORT = 10256
KUBE_PROXY_METRICS_PORT = 10249


@dataclass(frozen=True)
class NodePaths:
    """Where the node keeps its state: ``lib`` persists (images, kubelet root), ``run`` is on tmpfs
    (sockets, CNI, configs), ``config`` holds certificates and kubeconfigs."""

    lib: Path = Path("/var/lib/realnode")
    run: Path = Path("/run/realnode")

    @property
    def containerd_root(self) -> Path:
        return self.lib / "containerd"

    @property
    def containerd_state(self) -> Path:
        return self.run / "containerd"

    @property
    def containerd_socket(self) -> Path:
        return self.containerd_state / "containerd.sock"

    @property
    def kubelet_root(self) -> Path:
        return self.lib / "kubelet"

    @property
    def pod_logs(self) -> Path:
        return self.lib / "pod-logs"

    @property
    def cni_conf_dir(self) -> Path:
        return self.run / "cni-net.d"

    @property
    def cni_ipam_dir(self) -> Path:
        return self.run / "cni-ipam"

    @property
    def config(self) -> Path:
        return self.run / "config"

    @property
    def state_file(self) -> Path:
        return self.run / "state.json"

    @property
    def registry_hosts_dir(self) -> Path:
        """containerd's ``config_path``: one ``<host:port>/hosts.toml`` per registry it may pull
        from over plain HTTP (``registry_hosts_toml``)."""
        return self.run / "registry-hosts"


def containerd_toml(paths: NodePaths) -> str:
    return f"""version = 2
root = "{paths.containerd_root}"
state = "{paths.containerd_state}"
# No oom_score: this machine kind drops CAP_SYS_RESOURCE, nothing may go below 0.
[grpc]
  address = "{paths.containerd_socket}"
[ttrpc]
  address = "{paths.containerd_socket}.ttrpc"
[debug]
  level = "info"
[plugins."io.containerd.internal.v1.opt"]
  path = "{paths.lib / "opt"}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{PAUSE_IMAGE}"
  enable_selinux = false
  disable_apparmor = true
  tolerate_missing_hugetlb_controller = true
  # runc fails to set the negative oom_score_adj CRI asks for (no CAP_SYS_RESOURCE): clamp to 0.
  restrict_oom_score_adj = true
  # Pod network namespaces under our state dir, not the shared /var/run/netns.
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      # Privileged containers (BuildKit's daemon) need no runc wrapper dropping CAP_SYS_RESOURCE,
      # which this machine kind lacks (dockerd needs one, shared/research/kind.md): containerd 1.6
      # grants a privileged container the capabilities it has itself, not every known one.
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "{RUNC}"
        Root = "{paths.run / "runc"}"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "{CNI_BIN_DIR}"
    conf_dir = "{paths.cni_conf_dir}"
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".registry]
    # Read at every pull: a registry added while the node runs needs no restart.
    config_path = "{paths.registry_hosts_dir}"
"""


def registry_hosts_toml(host: str) -> str:
    """Pull from ``host`` (``ip:port``) over plain HTTP: test registries have no TLS."""
    return f"""server = "http://{host}"

[host."http://{host}"]
  capabilities = ["pull", "resolve"]
"""


def cni_conflist(paths: NodePaths) -> str:
    bridge = {
        "type": "bridge",
        "bridge": BRIDGE,
        "isGateway": True,
        "ipMasq": True,
        "hairpinMode": True,  # a Pod reaching itself through its own Service
        "ipam": {
            "type": "host-local",
            "dataDir": str(paths.cni_ipam_dir),
            "ranges": [[{"subnet": POD_SUBNET, "gateway": POD_GATEWAY}]],
            "routes": [{"dst": "0.0.0.0/0"}],
        },
    }
    portmap = {"type": "portmap", "capabilities": {"portMappings": True}}
    config = {"cniVersion": "1.0.0", "name": "realnode", "plugins": [bridge, portmap]}
    return json.dumps(config, indent=2) + "\n"


def kubelet_config(paths: NodePaths, *, node_ip: str) -> str:
    """KubeletConfiguration as JSON (valid YAML)."""
    config = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "containerRuntimeEndpoint": f"unix://{paths.containerd_socket}",
        "cgroupDriver": "cgroupfs",  # no systemd here
        "failCgroupV1": False,  # the host is cgroup v1 (hybrid); v1.36 refuses v1 by default
        "failSwapOn": False,
        "oomScoreAdj": 0,  # no CAP_SYS_RESOURCE: cannot go below 0
        "address": node_ip,
        "port": KUBELET_PORT,
        "readOnlyPort": 0,
        "healthzBindAddress": "127.0.0.1",
        "healthzPort": KUBELET_HEALTHZ_PORT,
        "tlsCertFile": str(paths.config / "kubelet-serving.crt"),
        "tlsPrivateKeyFile": str(paths.config / "kubelet-serving.key"),
        "authentication": {
            "anonymous": {"enabled": False},
            "webhook": {"enabled": True},
            "x509": {"clientCAFile": str(paths.config / "ca.crt")},
        },
        "authorization": {"mode": "Webhook"},
        "clusterDomain": "cluster.local",
        "resolvConf": "/etc/resolv.conf",
        "podLogsDir": str(paths.pod_logs),
        # Images cannot be pulled again here: never garbage-collect them.
        "imageGCHighThresholdPercent": 100,
        "imageGCLowThresholdPercent": 99,
        "evictionHard": {
            "memory.available": "100Mi",
            "nodefs.available": "1%",
            "imagefs.available": "1%",
            "nodefs.inodesFree": "1%",
        },
        "serializeImagePulls": False,
        "registerNode": True,
        # Only Pods that ask for the real node land on it; kwok's nodes keep the rest.
        "registerWithTaints": [{"key": TAINT_KEY, "value": "true", "effect": "NoSchedule"}],
        "maxPods": 110,
    }
    return json.dumps(config, indent=2) + "\n"


def kube_proxy_config(paths: NodePaths) -> str:
    """KubeProxyConfiguration as JSON (valid YAML), iptables mode."""
    config = {
        "apiVersion": "kubeproxy.config.k8s.io/v1alpha1",
        "kind": "KubeProxyConfiguration",
        "clientConnection": {"kubeconfig": str(paths.config / "kube-proxy.kubeconfig")},
        "hostnameOverride": NODE_NAME,
        "mode": "iptables",
        "clusterCIDR": POD_SUBNET,
        "detectLocalMode": "ClusterCIDR",
        "bindAddress": "0.0.0.0",
        "healthzBindAddress": f"127.0.0.1:{KUBE_PROXY_HEALTHZ_PORT}",
        "metricsBindAddress": f"127.0.0.1:{KUBE_PROXY_METRICS_PORT}",
        "oomScoreAdj": 0,
        "nodePortAddresses": ["primary"],
        "iptables": {
            # Else kube-proxy sets net.ipv4.conf.all.route_localnet=1 on the host.
            "localhostNodePorts": False,
            "masqueradeAll": False,
            "syncPeriod": "30s",
            "minSyncPeriod": "0s",
        },
        # Zero: leave the host's conntrack sysctls alone.
        "conntrack": {
            "maxPerCore": 0,
            "min": 0,
            "tcpEstablishedTimeout": "0s",
            "tcpCloseWaitTimeout": "0s",
        },
    }
    return json.dumps(config, indent=2) + "\n"


def kubelet_argv(kubelet: Path, paths: NodePaths, *, node_ip: str) -> list[str | Path]:
    return [
        kubelet,
        f"--config={paths.config / 'kubelet.yaml'}",
        f"--kubeconfig={paths.config / 'kubelet.kubeconfig'}",
        f"--root-dir={paths.kubelet_root}",
        f"--hostname-override={NODE_NAME}",
        f"--node-ip={node_ip}",
        "-v=1",
    ]


def kube_proxy_argv(kube_proxy: Path, paths: NodePaths) -> list[str | Path]:
    return [kube_proxy, f"--config={paths.config / 'kube-proxy.yaml'}", "-v=1"]


def containerd_argv(containerd: Path, paths: NodePaths) -> list[str | Path]:
    return [containerd, f"--config={paths.config / 'containerd.toml'}"]
