"""Find the real node's binaries and images, building them first when the cache lacks them.

``hack/control-plane/build-node.sh`` owns the build (kubelet, kube-proxy, the pause and probe
images, the Debian packages); this module runs it and reads the directory it prints last.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from .binaries import HACK_DIR, BuildError

BUILD_NODE_SCRIPT = HACK_DIR / "control-plane" / "build-node.sh"


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


def ensure_node_binaries(*, show_progress: bool = True) -> NodeBinaries:
    result = subprocess.run(
        [str(BUILD_NODE_SCRIPT)],
        stdout=subprocess.PIPE,
        stderr=None if show_progress else subprocess.PIPE,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        detail = "" if show_progress else f"\n{result.stderr[-4000:]}"
        raise BuildError(
            f"{BUILD_NODE_SCRIPT} failed with exit code {result.returncode}; "
            f"the real node cannot start without kubelet, kube-proxy and containerd{detail}"
        )
    lines = result.stdout.strip().splitlines()
    binaries = NodeBinaries(Path(lines[-1])) if lines else NodeBinaries(Path("/nonexistent"))
    for path in (binaries.kubelet, binaries.kube_proxy, binaries.pause_image):
        if not path.is_file():
            raise BuildError(f"{BUILD_NODE_SCRIPT} reported success but {path} is missing")
    return binaries
