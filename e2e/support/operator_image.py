"""The operator image for end-to-end tests: built from the repository's Dockerfile, and looked into.

``hack/image/build.sh`` builds ``localhost/dynamo-operator:dev`` here without Docker or a registry
(buildah over a Debian-built base) and prints the path of a docker-archive tar, cached until an
input of the image changes. Tests use it through the session fixture ``operator_image_tar``
(the real node imports that tar into its containerd); the first use in a session builds or reuses
it, and a failed build fails the test with the build's last lines, never a skip.

``ImageArchive`` reads such an archive the way a runtime does (manifest, config, layers) and
``ImageArchive.extract_rootfs`` applies its layers, whiteouts included. ``run_in_rootfs`` starts a
command of that rootfs as a container would for the chart's Pod, without a container runtime: the
image's user (never root), environment and working directory, the root filesystem mounted
read-only, and only ``/tmp`` writable (the chart's emptyDir). It needs root on the host (mount
namespace, chroot), as the build does.
"""

from __future__ import annotations

import contextlib
import functools
import json
import shutil
import subprocess
import tarfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = ROOT / "hack" / "image" / "build.sh"
IMAGE = "localhost/dynamo-operator:dev"
WHITEOUT_PREFIX = ".wh."
OPAQUE_WHITEOUT = ".wh..wh..opq"


@functools.cache
def build_operator_image() -> Path:
    """The image archive's path: built by ``hack/image/build.sh`` or reused from its cache."""
    return run_image_build(BUILD_SCRIPT)


def run_image_build(script: Path) -> Path:
    """Run a ``hack/image`` build script; the archive path it prints last.

    A failed build raises with the script's last lines (the caller's test fails, never skips).
    """
    result = subprocess.run([str(script)], capture_output=True, text=True, check=False, cwd=ROOT)
    if result.returncode != 0:
        tail = "\n".join(result.stderr.splitlines()[-40:])
        raise RuntimeError(
            f"{script} failed with exit code {result.returncode}; its last lines:\n{tail}"
        )
    lines = result.stdout.strip().splitlines()
    path = Path(lines[-1]) if lines else Path()
    if not path.is_file():
        raise RuntimeError(f"{script} printed no archive path (stdout: {result.stdout!r})")
    return path


@pytest.fixture(scope="session")
def operator_image_tar() -> Path:
    """The docker-archive of ``localhost/dynamo-operator:dev`` (``ctr -n k8s.io images import``)."""
    return build_operator_image()


@dataclass(frozen=True)
class Layer:
    name: str  # the member of the archive holding the layer tar
    size: int  # bytes, uncompressed


@dataclass(frozen=True)
class ImageArchive:
    """A ``docker-archive`` tar of one image (``docker save``, ``buildah push docker-archive:``)."""

    path: Path

    @functools.cached_property
    def manifest(self) -> dict[str, Any]:
        with tarfile.open(self.path) as archive:
            entries = json.loads(_read_member(archive, "manifest.json"))
        if len(entries) != 1:
            raise ValueError(f"{self.path}: expected one image, found {len(entries)}")
        entry: dict[str, Any] = entries[0]
        return entry

    @property
    def repo_tags(self) -> list[str]:
        return list(self.manifest.get("RepoTags") or [])

    @functools.cached_property
    def config(self) -> dict[str, Any]:
        """The image configuration (``.config`` holds User, Entrypoint, Cmd, Env, ...)."""
        with tarfile.open(self.path) as archive:
            config: dict[str, Any] = json.loads(_read_member(archive, self.manifest["Config"]))
        return config

    @functools.cached_property
    def layers(self) -> list[Layer]:
        with tarfile.open(self.path) as archive:
            return [Layer(name, _resolve(archive, name).size) for name in self.manifest["Layers"]]

    def layer_paths(self, layer: Layer) -> list[PurePosixPath]:
        """Every path a layer holds (whiteout markers included), relative to the root."""
        with tarfile.open(self.path) as archive, _open_layer(archive, layer) as members:
            return [_relative(member.name) for member in members]

    def extract_rootfs(self, destination: Path) -> Path:
        """The image's root filesystem in ``destination``, layer over layer, as a runtime sees it.

        Ownership and modes are kept (``tar --numeric-owner``, so run this as root).
        """
        destination.mkdir(parents=True, exist_ok=True)
        with tarfile.open(self.path) as archive:
            for layer in self.layers:
                with _open_layer(archive, layer) as members:
                    paths = [_relative(member.name) for member in members]
                _apply_whiteouts(destination, paths)
                _untar(archive, layer, destination)
                for path in paths:
                    if path.name.startswith(WHITEOUT_PREFIX):
                        (destination / path).unlink(missing_ok=True)
        return destination


def whiteout_targets(
    paths: Sequence[PurePosixPath],
) -> tuple[list[PurePosixPath], list[PurePosixPath]]:
    """What a layer deletes from the layers below: (paths removed, directories made opaque)."""
    removed: list[PurePosixPath] = []
    opaque: list[PurePosixPath] = []
    for path in paths:
        if path.name == OPAQUE_WHITEOUT:
            opaque.append(path.parent)
        elif path.name.startswith(WHITEOUT_PREFIX):
            removed.append(path.parent / path.name[len(WHITEOUT_PREFIX) :])
    return removed, opaque


def _apply_whiteouts(root: Path, paths: Sequence[PurePosixPath]) -> None:
    removed, opaque = whiteout_targets(paths)
    for directory in opaque:
        target = root / directory
        if target.is_dir() and not target.is_symlink():
            for child in target.iterdir():
                _remove(child)
    for path in removed:
        _remove(root / path)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _read_member(archive: tarfile.TarFile, name: str) -> bytes:
    file = archive.extractfile(_resolve(archive, name))
    if file is None:
        raise ValueError(f"{name} is not a file in the archive")
    return file.read()


def _resolve(archive: tarfile.TarFile, name: str) -> tarfile.TarInfo:
    """The member, following the relative symlinks docker-archive uses for shared layers."""
    member = archive.getmember(name)
    while member.issym():
        target = PurePosixPath(name).parent / member.linkname
        name = str(PurePosixPath(*_normalised_parts(target)))
        member = archive.getmember(name)
    return member


def _normalised_parts(path: PurePosixPath) -> list[str]:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    return parts


@contextlib.contextmanager
def _open_layer(archive: tarfile.TarFile, layer: Layer) -> Iterator[Iterator[tarfile.TarInfo]]:
    file = archive.extractfile(_resolve(archive, layer.name))
    if file is None:
        raise ValueError(f"layer {layer.name} is not a file")
    with tarfile.open(fileobj=file) as members:
        yield iter(members)


def _relative(name: str) -> PurePosixPath:
    return PurePosixPath(*_normalised_parts(PurePosixPath(name)))


def _untar(archive: tarfile.TarFile, layer: Layer, destination: Path) -> None:
    file = archive.extractfile(_resolve(archive, layer.name))
    assert file is not None
    tar = subprocess.Popen(
        ["tar", "--numeric-owner", "--same-permissions", "-xf", "-", "-C", str(destination)],
        stdin=subprocess.PIPE,
    )
    assert tar.stdin is not None
    shutil.copyfileobj(file, tar.stdin, 1 << 20)
    tar.stdin.close()
    if tar.wait() != 0:
        raise RuntimeError(f"extracting layer {layer.name} failed with exit code {tar.returncode}")


# Run by the host's /bin/sh inside a new mount namespace (private propagation: nothing leaks to the
# host, everything goes when the process ends), then replaced by the container's command through
# exec, so the process started is the command itself (signals reach it directly).
_SANDBOX = r"""
set -eu
root=$1 tmp=$2 user=$3 workdir=$4
shift 4
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --bind "$tmp" "$root/tmp"
mount -o remount,bind,ro "$root"
exec chroot --userspec="$user" "$root" /usr/bin/env -i -C "$workdir" "$@"
"""


def run_in_rootfs(
    rootfs: Path,
    config: dict[str, Any],
    argv: Sequence[str],
    tmp: Path,
    *,
    entrypoint: Sequence[str] | None = None,
    environment: Sequence[str] = (),
    **popen: Any,
) -> subprocess.Popen[str]:
    """Start ``argv`` (the arguments after the entrypoint) in ``rootfs`` as the image config says.

    The image's user, environment (plus ``environment``, ``NAME=value`` items) and working
    directory; the root read-only; ``tmp`` (a host directory, made world-writable like an emptyDir)
    mounted on /tmp. ``entrypoint`` replaces the image's, as ``docker run --entrypoint`` does.
    """
    settings = config["config"]
    user = settings.get("User") or "0:0"
    command = [*(settings.get("Entrypoint") or [] if entrypoint is None else entrypoint), *argv]
    tmp.chmod(0o1777)
    sandbox = ["unshare", "--mount", "--", "/bin/sh", "-c", _SANDBOX, "sandbox"]
    workdir = settings.get("WorkingDir") or "/"
    return subprocess.Popen(
        [
            *sandbox,
            *(str(rootfs), str(tmp), user, workdir),
            *settings.get("Env", []),
            *environment,
            *command,
        ],
        text=True,
        **popen,
    )
