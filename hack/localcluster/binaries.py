"""Find the control plane's binaries, building them first when the cache does not have them.

The Go build lives in ``hack/control-plane/build.sh`` (wrapper module, version pins, cache keys);
this module only runs it and reads the directories it reports, so there is one source of truth for
where binaries live.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HACK_DIR = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = HACK_DIR / "control-plane" / "build.sh"


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


def ensure_binaries(*, show_progress: bool = True) -> Binaries:
    """Run the (cached, locked) build and return where everything is.

    With ``show_progress`` the build's own messages go to our stderr, so a cold build of 20+ minutes
    is visibly alive; otherwise they are only in the error raised on failure.
    """
    result = subprocess.run(
        [str(BUILD_SCRIPT)],
        stdout=subprocess.PIPE,
        stderr=None if show_progress else subprocess.PIPE,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        detail = "" if show_progress else f"\n{result.stderr[-4000:]}"
        raise BuildError(
            f"{BUILD_SCRIPT} failed with exit code {result.returncode}; "
            f"the local control plane cannot start without its binaries{detail}"
        )
    locations = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    try:
        binaries = Binaries(
            kube_bin=Path(locations["K8S_BIN"]),
            kwok_dir=Path(locations["KWOK_DIR"]),
            helm_dir=Path(locations["HELM_DIR"]),
            lws_dir=Path(locations["LWS_DIR"]),
        )
    except KeyError as missing:
        raise BuildError(f"{BUILD_SCRIPT} did not report {missing}: {result.stdout!r}") from None
    for path in (binaries.kube("kube-apiserver"), binaries.kwok, binaries.lws_controller):
        if not path.is_file():
            raise BuildError(f"{BUILD_SCRIPT} reported success but {path} is missing")
    return binaries


if __name__ == "__main__":  # pragma: no cover - manual use: python -m localcluster.binaries
    print(ensure_binaries(), file=sys.stderr)
