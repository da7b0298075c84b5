"""The operator image as users rely on it: built from the repository's Dockerfile (here by
``hack/image/build.sh``, or reused from its cache), read as a runtime reads it, and run the way the
chart runs it: as uid 65532 with a read-only root filesystem and only /tmp writable.

No cluster is needed: the archive is inspected directly and its rootfs is run in a mount namespace
with chroot (root on the host, as the build needs).
"""

from __future__ import annotations

import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

from e2e.localcluster.ports import free_port
from e2e.support.operator_image import (
    IMAGE,
    ImageArchive,
    run_in_rootfs,
)

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
NON_ROOT = "65532:65532"
PACKAGES = ("dynamo_operator", "manager", "webhooks")
# Compilers and build tools the final image must not ship (in any layer: a file deleted by an upper
# layer still ships in the lower one).
BUILD_TOOLS = frozenset(
    {"gcc", "cc", "c++", "g++", "cpp", "clang", "ld", "as", "make", "x86_64-linux-gnu-gcc"}
)
BIN_DIRS = frozenset({"bin", "sbin", "usr/bin", "usr/sbin", "usr/local/bin", "opt/venv/bin"})


@pytest.fixture(scope="module")
def archive(operator_image_tar: Path) -> ImageArchive:
    return ImageArchive(operator_image_tar)


@pytest.fixture(scope="module")
def layer_paths(archive: ImageArchive) -> list[list[PurePosixPath]]:
    return [archive.layer_paths(layer) for layer in archive.layers]


@pytest.fixture(scope="module")
def rootfs(archive: ImageArchive, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("operator-image") / "rootfs"
    yield archive.extract_rootfs(directory)
    # 250 MB of root-owned files: not left for pytest's temp-dir rotation.
    subprocess.run(["rm", "-rf", "--one-file-system", str(directory)], check=True)


def test_archive_holds_one_image_named_for_containerd(
    archive: ImageArchive, record_property: pytest.RecordProperty
) -> None:
    assert archive.repo_tags == [IMAGE]
    sizes = [layer.size for layer in archive.layers]
    assert len(sizes) >= 2, "the base's layers and the operator's own"
    mib = 1024 * 1024
    record_property("image_uncompressed_mib", round(sum(sizes) / mib, 1))
    record_property("layer_mib", [round(size / mib, 1) for size in sizes])
    print(
        f"\n{IMAGE}: {sum(sizes) / mib:.1f} MiB uncompressed in {len(sizes)} layers "
        f"({', '.join(f'{size / mib:.1f}' for size in sizes)} MiB); archive {archive.path}"
    )
    # The operator's own layer is the venv: far smaller than the base it sits on.
    assert sizes[-1] < 200 * mib


def test_config_runs_the_operator_as_non_root(archive: ImageArchive) -> None:
    config = archive.config["config"]
    assert config["User"] == NON_ROOT
    assert config["Entrypoint"] == ["dynamo-operator"]
    assert config["Cmd"] == ["run"]
    assert set(config["ExposedPorts"]) == {"8081/tcp", "8443/tcp", "9443/tcp"}
    environment = dict(item.split("=", 1) for item in config["Env"])
    assert environment["PYTHONDONTWRITEBYTECODE"] == "1"
    assert environment["PATH"].startswith("/opt/venv/bin:")
    labels = config["Labels"]
    assert labels["org.opencontainers.image.title"] == "dynamo-operator"
    assert labels["org.opencontainers.image.licenses"] == "Apache-2.0"
    assert labels["org.opencontainers.image.version"]


def test_no_layer_ships_a_compiler_build_tools_pip_or_caches(
    layer_paths: list[list[PurePosixPath]],
) -> None:
    shipped = [path for paths in layer_paths for path in paths]
    tools = [p for p in shipped if str(p.parent) in BIN_DIRS and p.name in BUILD_TOOLS]
    assert tools == []
    caches = [p for p in shipped if ".cache" in p.parts or p.parts[:2] == ("root", ".cache")]
    assert caches == []
    assert [p for p in shipped if p.parts[:1] == ("src",)] == [], "the build stage's sources"
    venv = [p for p in shipped if p.parts[:2] == ("opt", "venv")]
    assert venv, "the operator's virtual environment"
    installers = [p for p in venv if p.name in ("pip", "pip3") or "pip" in p.parts]
    assert installers == []
    # Only the last layer is the operator's: the base is untouched by the build.
    assert all(p.parts[:2] != ("opt", "venv") for paths in layer_paths[:-1] for p in paths)


def test_image_holds_the_repository_sources(rootfs: Path) -> None:
    """The cache key is right: the installed packages are the working tree's, byte for byte."""
    (site_packages,) = rootfs.glob("opt/venv/lib/python3*/site-packages")
    differing = [
        str(source.relative_to(ROOT))
        for package in PACKAGES
        for source in sorted((ROOT / package).rglob("*.py"))
        if not (site_packages / source.relative_to(ROOT)).is_file()
        or (site_packages / source.relative_to(ROOT)).read_bytes() != source.read_bytes()
    ]
    assert differing == [], f"rebuild with hack/image/build.sh; stale or missing: {differing[:10]}"


def test_sandbox_is_non_root_with_a_read_only_root(
    archive: ImageArchive, rootfs: Path, tmp_path: Path
) -> None:
    """The harness itself: what the next tests rely on really holds."""
    script = "id -u; id -g; pwd; touch /tmp/ok && echo tmp-writable; touch /opt/x || echo ro"
    result = _run(archive, rootfs, tmp_path, ["-c", script], entrypoint=["/bin/sh"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["65532", "65532", "/tmp", "tmp-writable", "ro"]
    assert "Read-only file system" in result.stderr
    assert (tmp_path / "ok").exists()


def test_version_and_help_run_as_non_root_on_a_read_only_root(
    archive: ImageArchive, rootfs: Path, tmp_path: Path
) -> None:
    version = _run(archive, rootfs, tmp_path, ["version"])
    assert (version.returncode, version.stderr) == (0, "")
    assert version.stdout.strip() == "dynamo-operator 0.1.0"
    usage = _run(archive, rootfs, tmp_path, ["run", "--help"])
    assert usage.returncode == 0, usage.stderr
    assert "--health-probe-bind-address" in usage.stdout


def test_operator_serves_health_and_stops_cleanly_on_a_read_only_root(
    archive: ImageArchive, rootfs: Path, tmp_path: Path
) -> None:
    """``run`` as the chart starts it (secure metrics make a certificate at start), with an API
    server that refuses connections: it must serve /healthz, write nothing outside /tmp (the root
    is read-only, so a write there would fail it) and exit 0 on SIGTERM."""
    health, metrics = free_port(), free_port()
    (tmp_path / "kubeconfig").write_text(_UNREACHABLE_KUBECONFIG)
    argv = [
        "run",
        f"--health-probe-bind-address=127.0.0.1:{health}",
        f"--metrics-bind-address=127.0.0.1:{metrics}",
        "--metrics-secure",
    ]
    process = run_in_rootfs(
        rootfs,
        archive.config,
        argv,
        tmp_path,
        environment=["KUBECONFIG=/tmp/kubeconfig", "POD_NAMESPACE=dynamo-system"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        status = _wait_for_status(f"http://127.0.0.1:{health}/healthz", process)
        assert status == 200
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=30)
    assert process.returncode == 0, output
    assert "Read-only file system" not in output
    assert "Errno 30" not in output
    assert "manager stopped" in output


_UNREACHABLE_KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: none}}]
contexts: [{name: c, context: {cluster: c, user: u, namespace: dynamo-system}}]
current-context: c
"""


def _run(
    archive: ImageArchive,
    rootfs: Path,
    tmp: Path,
    argv: list[str],
    entrypoint: list[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    process = run_in_rootfs(
        rootfs,
        archive.config,
        argv,
        tmp,
        entrypoint=entrypoint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    stdout, stderr = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _wait_for_status(url: str, process: subprocess.Popen[str], timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            pytest.fail(f"the operator exited with {process.returncode} before serving {url}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                status: int = response.status
                return status
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                pytest.fail(f"{url} did not answer within {timeout}s")
            time.sleep(0.2)
