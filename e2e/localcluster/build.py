"""Find the harness's binaries, building them first when the cache does not have them.

The Go builds live in ``hack/control-plane/`` (wrapper module, version pins, cache keys):
``build.sh`` for the control plane, ``build-node.sh`` for the real node (kubelet, kube-proxy, the
pause and probe images, the Debian packages), ``build-build-service.sh`` for the registry,
BuildKit and kaniko the image-build tests run on the real node. This module only runs them and
reads the directories they report, so there is one source of truth for where binaries live.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HACK_DIR = Path(__file__).resolve().parents[2] / "hack"
BUILD_SCRIPT = HACK_DIR / "control-plane" / "build.sh"
BUILD_NODE_SCRIPT = HACK_DIR / "control-plane" / "build-node.sh"
BUILD_BUILD_SERVICE_SCRIPT = HACK_DIR / "control-plane" / "build-build-service.sh"


class BuildError(RuntimeError):
    """The binaries could not be built; the end-to-end tests cannot run without them."""


@dataclass(frozen=True)
class Binaries:
    kube_bin: Path
    """etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl."""
    kwok_dir: Path
    helm_dir: Path
    lws_dir: Path

    def kube(self, name: str) -> Path:
        return self.kube_bin / name

    @property
    def kwok(self) -> Path:
        return self.kwok_dir / "bin" / "kwok"

    @property
    def kwok_source(self) -> Path:
        return self.kwok_dir / "src"

    @property
    def helm(self) -> Path:
        return self.helm_dir / "bin" / "helm"

    @property
    def lws_controller(self) -> Path:
        return self.lws_dir / "bin" / "lws-controller"

    @property
    def lws_source(self) -> Path:
        return self.lws_dir / "src"


@dataclass(frozen=True)
class NodeBinaries:
    directory: Path

    @property
    def kubelet(self) -> Path:
        return self.directory / "bin" / "kubelet"

    @property
    def kube_proxy(self) -> Path:
        return self.directory / "bin" / "kube-proxy"

    @property
    def pause_image(self) -> Path:
        """``localhost/pause:local``: every Pod's sandbox."""
        return self.directory / "images" / "pause.tar"

    @property
    def probe_image(self) -> Path:
        """``localhost/realnode-probe:local``: ``/probe serve|get URL|whoami`` (node/probe)."""
        return self.directory / "images" / "probe.tar"


@dataclass(frozen=True)
class BuildServiceBinaries:
    """The registry, BuildKit and kaniko, as host binaries and as docker-archive images."""

    directory: Path

    @property
    def registry(self) -> Path:
        return self.directory / "bin" / "registry"

    @property
    def buildkitd(self) -> Path:
        return self.directory / "bin" / "buildkitd"

    @property
    def buildctl(self) -> Path:
        return self.directory / "bin" / "buildctl"

    @property
    def registry_image(self) -> Path:
        """``localhost/registry:<REGISTRY_VERSION>``: ``/usr/bin/registry`` alone."""
        return self.directory / "images" / "registry.tar"

    @property
    def buildkit_image(self) -> Path:
        """``localhost/buildkit:<BUILDKIT_VERSION>``: buildkitd (entrypoint), buildctl, runc and
        busybox (``sh``, ``tar``, ``wget``)."""
        return self.directory / "images" / "buildkit.tar"

    @property
    def kaniko_image(self) -> Path:
        """``localhost/kaniko:<KANIKO_VERSION>``: ``/kaniko/executor`` (entrypoint), no shell."""
        return self.directory / "images" / "kaniko.tar"

    @property
    def tools_image(self) -> Path:
        """``localhost/build-tools:<busybox version>``: busybox alone (sh, tar, wget)."""
        return self.directory / "images" / "tools.tar"


def ensure_binaries(*, show_progress: bool = True) -> Binaries:
    """Run the (cached, locked) build and return where everything is.

    With ``show_progress`` the build's own messages go to our stderr, so a cold build of 20+ minutes
    is visibly alive; otherwise they are only in the error raised on failure.
    """
    output = _run_build(BUILD_SCRIPT, "the local control plane", show_progress=show_progress)
    locations = dict(line.split("=", 1) for line in output.splitlines() if "=" in line)
    try:
        binaries = Binaries(
            kube_bin=Path(locations["K8S_BIN"]),
            kwok_dir=Path(locations["KWOK_DIR"]),
            helm_dir=Path(locations["HELM_DIR"]),
            lws_dir=Path(locations["LWS_DIR"]),
        )
    except KeyError as missing:
        raise BuildError(f"{BUILD_SCRIPT} did not report {missing}: {output!r}") from None
    _require(BUILD_SCRIPT, binaries.kube("kube-apiserver"), binaries.kwok, binaries.lws_controller)
    return binaries


def ensure_node_binaries(*, show_progress: bool = True) -> NodeBinaries:
    """Run the real node's build; it prints its directory last."""
    purpose = "the real node (kubelet, kube-proxy and containerd)"
    lines = _run_build(BUILD_NODE_SCRIPT, purpose, show_progress=show_progress).strip().splitlines()
    binaries = NodeBinaries(Path(lines[-1])) if lines else NodeBinaries(Path("/nonexistent"))
    _require(BUILD_NODE_SCRIPT, binaries.kubelet, binaries.kube_proxy, binaries.pause_image)
    return binaries


def ensure_build_service_binaries(*, show_progress: bool = True) -> BuildServiceBinaries:
    """Run the build service's build (registry, BuildKit, their images); it prints its directory
    last."""
    script = BUILD_BUILD_SERVICE_SCRIPT
    purpose = "the build service (registry, BuildKit, kaniko)"
    lines = _run_build(script, purpose, show_progress=show_progress).strip().splitlines()
    binaries = BuildServiceBinaries(Path(lines[-1]) if lines else Path("/nonexistent"))
    _require(script, binaries.buildctl, binaries.registry_image, binaries.buildkit_image)
    _require(script, binaries.tools_image, binaries.kaniko_image)
    return binaries


def _run_build(script: Path, purpose: str, *, show_progress: bool) -> str:
    result = subprocess.run(
        [str(script)],
        stdout=subprocess.PIPE,
        stderr=None if show_progress else subprocess.PIPE,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        detail = "" if show_progress else f"\n{result.stderr[-4000:]}"
        raise BuildError(
            f"{script} failed with exit code {result.returncode}; "
            f"{purpose} cannot start without its binaries{detail}"
        )
    return result.stdout


def _require(script: Path, *paths: Path) -> None:
    for path in paths:
        if not path.is_file():
            raise BuildError(f"{script} reported success but {path} is missing")


if __name__ == "__main__":  # pragma: no cover - manual use: python -m e2e.localcluster.build
    print(ensure_binaries(), file=sys.stderr)
