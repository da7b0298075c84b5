"""The cluster's image build service for end-to-end tests: an OCI registry and a BuildKit daemon
running as Deployments on the real node, plus kaniko's executor image (no daemon), all real (built
from their Go modules, ``hack/control-plane/build-build-service.sh``), for tests of image builds
(the DynamoComponent controller's builder Jobs) and of pulling what they built.

    from e2e.support.build_service import BuildService, push_image

    def test_build(real_node: RealNodeCluster, build_service: BuildService) -> None:
        probe_tar = real_node.node.binaries.probe_image  # localhost/realnode-probe:local
        base = push_image(build_service, probe_tar, "probe:1")  # "<registry>/probe:1"
        # a Job: buildctl --addr $BUILDKIT_URL ... --output type=image,name=<registry>/x:1,push=true
        assert image_exists(build_service, "x", "1")

The module-scoped fixture ``build_service`` (registered in ``e2e/conftest.py``, started only for the
modules that ask for it) deploys into a fresh namespace of the module's ``real_node``; or call
``deploy_build_service(real_node, namespace)`` for other settings (registry credentials). Both
imports their images into the node, create the objects and return once the registry answers
``/v2/`` and buildkitd lists its worker, from the host, through the Services' ClusterIPs.

``BuildService`` (frozen):

- ``registry``: ``<ClusterIP>:5000``, the host:port to put in image names. Plain HTTP. Pods reach
  it through kube-proxy, and so does the node's containerd (the host): the node is told to pull
  from it over HTTP (``RealNode.allow_plain_http_registry``: a ``hosts.toml`` under containerd's
  ``config_path``), so ``image: <registry>/x:1`` with ``imagePullPolicy: Always`` really pulls.
  No cluster DNS on the real node: the name is the IP. BuildKit is configured (``buildkitd.toml``)
  to pull ``FROM <registry>/...`` over HTTP; a push needs ``registry.insecure=true`` in buildctl's
  ``--output``.
- ``buildkit_url``: ``tcp://<ClusterIP>:1234``, for ``buildctl --addr`` in Pods on the real node
  (no TLS); the host reaches it too (``buildctl`` is the host binary, for checks).
- ``buildkit_image``: ``localhost/buildkit:<v>``, already on the node (``imagePullPolicy: Never``
  or ``IfNotPresent``): buildctl, buildkitd, runc and busybox (``/bin/sh``, ``tar``, ``wget``),
  usable as a builder Job's image and as its download init container's.
- ``tools_image``: ``localhost/build-tools:<busybox version>``, busybox alone, on the node too (a
  small init-container image) and in the registry as ``<registry>/build-tools:1``, a base with a
  shell for Dockerfiles' ``RUN`` steps (the probe image has no shell).
- ``kaniko_image``: ``localhost/kaniko:<v>``, on the node: ``/kaniko/executor`` as entrypoint, no
  shell (download the context with ``buildkit_image`` or ``tools_image`` in an init container);
  ``--insecure --insecure-pull`` for the plain-HTTP registry. Never ``None`` here; the field is
  optional for clusters without kaniko.
- ``credentials``: ``(username, password)`` when deployed with htpasswd auth, else ``None``.
- ``namespace``; ``buildctl``: the host's buildctl binary.

Functions (each uses the service's credentials): ``push_image(service, tar, name)`` (a
docker-archive tar into the registry as ``name``, ``repo:tag``; returns ``<registry>/<name>``),
``registry_tags(service, repository)``, ``image_exists(service, repository, tag)`` (HEAD of the
manifest with every manifest type accepted, as the operator's check does). What a built image
holds: ``registry_client.image_config`` and ``image_file_names``. Builder Jobs known to work:
``e2e.support.builder_jobs``; a context server on the node IP: ``e2e.support.file_server``.

BuildKit runs privileged (``buildkitd`` with its OCI worker: runc for ``RUN`` steps, overlayfs
snapshots on an emptyDir). That works on this machine kind as it is: containerd 1.6 grants a
privileged container the capabilities containerd itself has, so the missing ``CAP_SYS_RESOURCE``
is not asked for (no runc wrapper needed). Unprivileged, buildkitd cannot even mount its
snapshots. Storage is emptyDir: registry and build cache live as long as the module's node.
"""

from __future__ import annotations

import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from e2e.localcluster import wait_for
from e2e.localcluster.build import ensure_build_service_binaries
from e2e.support import build_service_objects as objects
from e2e.support import registry_client
from e2e.support.real_node import RealNodeCluster
from e2e.support.registry_client import Credentials

TOOLS_IN_REGISTRY = "build-tools:1"
_READY_TIMEOUT = 180.0


@dataclass(frozen=True)
class BuildService:
    namespace: str
    registry: str
    buildkit_url: str
    buildkit_image: str
    tools_image: str
    buildctl: Path
    """The host's buildctl (same version as the image's), for checks from the test process."""
    kaniko_image: str | None = None
    credentials: Credentials | None = None


def deploy_build_service(
    real_node: RealNodeCluster, namespace: str, *, credentials: Credentials | None = None
) -> BuildService:
    """Deploy the registry and BuildKit into ``namespace`` (it must exist) on the real node and
    wait until both answer. ``credentials``: the registry requires them (htpasswd, HTTP Basic)."""
    binaries = ensure_build_service_binaries(show_progress=True)
    images = {}
    tars = (
        binaries.registry_image,
        binaries.buildkit_image,
        binaries.tools_image,
        binaries.kaniko_image,
    )
    for tar in tars:
        real_node.import_image(tar)
        images[tar] = registry_client.archive_repo_tags(tar)[0]
    api = real_node.api
    placement = real_node.pod_placement()
    registry_ip = objects.create_service(api, namespace, "registry", objects.REGISTRY_PORT)
    registry = f"{registry_ip}:{objects.REGISTRY_PORT}"
    real_node.node.allow_plain_http_registry(registry)
    objects.create_registry(
        api, namespace, images[binaries.registry_image], placement, credentials=credentials
    )
    buildkit_ip = objects.create_service(api, namespace, "buildkitd", objects.BUILDKIT_PORT)
    objects.create_buildkitd(api, namespace, images[binaries.buildkit_image], placement, registry)
    service = BuildService(
        namespace=namespace,
        registry=registry,
        buildkit_url=f"tcp://{buildkit_ip}:{objects.BUILDKIT_PORT}",
        buildkit_image=images[binaries.buildkit_image],
        tools_image=images[binaries.tools_image],
        kaniko_image=images[binaries.kaniko_image],
        buildctl=binaries.buildctl,
        credentials=credentials,
    )
    try:
        wait_for(
            "the registry to answer /v2/",
            lambda: _registry_answers(service),
            timeout=_READY_TIMEOUT,
        )
        wait_for(
            "buildkitd to list its worker",
            lambda: _buildkit_answers(service),
            timeout=_READY_TIMEOUT,
        )
    except TimeoutError as error:
        raise TimeoutError(f"{error}\n{objects.describe_pods(real_node, namespace)}") from None
    push_image(service, binaries.tools_image, TOOLS_IN_REGISTRY)
    return service


def push_image(service: BuildService, tar: Path, name: str) -> str:
    """Put a docker-archive image (e.g. the node's probe image tar) into the registry as ``name``
    (``repo:tag``), so Dockerfiles can ``FROM`` it; returns ``<registry>/<name>``."""
    return registry_client.push_archive(service.registry, tar, name, service.credentials)


def registry_tags(service: BuildService, repository: str) -> list[str]:
    """The repository's tags (sorted; empty when it does not exist)."""
    return registry_client.list_tags(service.registry, repository, service.credentials)


def image_exists(service: BuildService, repository: str, tag: str) -> bool:
    """HEAD ``/v2/<repository>/manifests/<tag>`` with every manifest type accepted."""
    return registry_client.manifest_exists(service.registry, repository, tag, service.credentials)


@pytest.fixture(scope="module", name="build_service")
def build_service_fixture(real_node: RealNodeCluster) -> BuildService:
    """The build service in namespace ``build-service-<random>`` of the module's real node; it
    goes when the node stops."""
    return deploy_build_service(real_node, real_node.create_namespace("build-service"))


def _registry_answers(service: BuildService) -> bool:
    request = urllib.request.Request(f"http://{service.registry}/v2/")
    try:
        with urllib.request.urlopen(request, timeout=3) as reply:
            return bool(reply.status == 200)
    except urllib.error.HTTPError as error:
        # With auth on, an anonymous /v2/ is refused: the registry is up.
        return service.credentials is not None and error.code == 401
    except OSError:
        return False


def _buildkit_answers(service: BuildService) -> bool:
    try:
        result = subprocess.run(
            [str(service.buildctl), "--addr", service.buildkit_url, "debug", "workers"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False
    return result.returncode == 0 and len(result.stdout.strip().splitlines()) > 1
