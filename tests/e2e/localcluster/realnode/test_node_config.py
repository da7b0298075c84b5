"""The real node's configuration, as the daemons read it: each setting here is one that, when
missing, made the node fail on this machine kind (each says so in ``node_config``)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import yaml

from e2e.localcluster.realnode import node_config
from e2e.localcluster.realnode.node_config import NodePaths

PATHS = NodePaths(lib=Path("/var/lib/realnode"), run=Path("/run/realnode"))


def test_containerd_keeps_everything_under_the_nodes_own_directories() -> None:
    config = tomllib.loads(node_config.containerd_toml(PATHS))
    cri = config["plugins"]["io.containerd.grpc.v1.cri"]
    paths = [
        config["root"],
        config["state"],
        config["grpc"]["address"],
        config["ttrpc"]["address"],
        config["plugins"]["io.containerd.internal.v1.opt"]["path"],
        cri["cni"]["conf_dir"],
        cri["containerd"]["runtimes"]["runc"]["options"]["Root"],
    ]
    assert all(p.startswith(("/var/lib/realnode/", "/run/realnode/")) for p in paths), paths
    assert cri["netns_mounts_under_state_dir"] is True


def test_containerd_clamps_oom_scores_and_uses_the_local_pause_image() -> None:
    cri = tomllib.loads(node_config.containerd_toml(PATHS))["plugins"]["io.containerd.grpc.v1.cri"]
    # Without it runc fails every Pod: no CAP_SYS_RESOURCE for the negative scores CRI asks for.
    assert cri["restrict_oom_score_adj"] is True
    assert cri["sandbox_image"] == "localhost/pause:local"
    assert "oom_score" not in tomllib.loads(node_config.containerd_toml(PATHS))


def test_the_kubelet_runs_on_cgroup_v1_without_negative_oom_scores_and_taints_its_node() -> None:
    config = yaml.safe_load(node_config.kubelet_config(PATHS, node_ip="192.0.2.2"))
    assert config["failCgroupV1"] is False
    assert config["cgroupDriver"] == "cgroupfs"
    assert config["oomScoreAdj"] == 0
    assert config["registerWithTaints"] == [
        {"key": "realnode", "value": "true", "effect": "NoSchedule"}
    ]
    assert config["authentication"]["anonymous"] == {"enabled": False}
    assert config["authorization"] == {"mode": "Webhook"}
    assert config["containerRuntimeEndpoint"] == "unix:///run/realnode/containerd/containerd.sock"
    assert config["address"] == "192.0.2.2"


def test_kube_proxy_leaves_route_localnet_and_conntrack_sysctls_alone() -> None:
    config = yaml.safe_load(node_config.kube_proxy_config(PATHS))
    assert config["mode"] == "iptables"
    assert config["iptables"]["localhostNodePorts"] is False
    assert config["conntrack"]["maxPerCore"] == 0
    assert config["conntrack"]["tcpEstablishedTimeout"] == "0s"
    assert config["hostnameOverride"] == node_config.NODE_NAME


def test_pods_get_addresses_from_the_bridge_apart_from_kwok_and_services() -> None:
    config = json.loads(node_config.cni_conflist(PATHS))
    bridge = config["plugins"][0]
    assert bridge["bridge"] == "rn0"
    assert bridge["ipam"]["ranges"] == [[{"subnet": "10.88.0.0/16", "gateway": "10.88.0.1"}]]
    assert bridge["ipam"]["dataDir"] == "/run/realnode/cni-ipam"


def test_the_kubelet_is_named_and_addressed_as_the_node() -> None:
    argv = [str(a) for a in node_config.kubelet_argv(Path("/k"), PATHS, node_ip="192.0.2.2")]
    assert "--hostname-override=real-node" in argv
    assert "--node-ip=192.0.2.2" in argv
    assert "--root-dir=/var/lib/realnode/kubelet" in argv


def test_containerd_reads_registry_hosts_from_the_nodes_state_dir() -> None:
    cri = tomllib.loads(node_config.containerd_toml(PATHS))["plugins"]["io.containerd.grpc.v1.cri"]
    assert cri["registry"]["config_path"] == str(PATHS.registry_hosts_dir)


def test_registry_hosts_toml_pulls_over_plain_http() -> None:
    hosts = tomllib.loads(node_config.registry_hosts_toml("10.96.0.7:5000"))
    assert hosts["server"] == "http://10.96.0.7:5000"
    assert hosts["host"]["http://10.96.0.7:5000"]["capabilities"] == ["pull", "resolve"]
