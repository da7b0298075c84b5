"""The build service on the real node: BuildKit builds a Dockerfile from a context a builder Job
downloads, pushes the image to the registry, and the node's containerd pulls it from there.

The same path the DynamoComponent controller's builder Jobs take (init container: download and
untar the context into an emptyDir; ``builder``: ``buildctl ... --output type=image,push=true``),
with nothing mocked: every assertion is about something the registry stores or a container that
really ran from the pulled image.
"""

from __future__ import annotations

import base64
import io
import json
import tarfile
import uuid
from typing import Any

import pytest
from kr8s.objects import Job, Pod, Secret

from e2e.localcluster import wait_for
from e2e.support import registry_client
from e2e.support.build_service import (
    TOOLS_IN_REGISTRY,
    BuildService,
    deploy_build_service,
    image_exists,
    push_image,
    registry_tags,
)
from e2e.support.file_server import ServedFiles, serve_files
from e2e.support.real_node import RealNodeCluster

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

_BUILD_TIMEOUT = 300.0


@pytest.fixture(scope="module")
def probe_base(real_node: RealNodeCluster, build_service: BuildService) -> str:
    """The node's probe image, pushed to the registry: the base the Dockerfiles build on."""
    return push_image(build_service, real_node.node.binaries.probe_image, "probe:1")


@pytest.fixture(scope="module")
def contexts(real_node: RealNodeCluster) -> Any:
    with serve_files(real_node.node.node_ip, {}) as served:
        yield served


def test_a_dockerfile_is_built_in_the_cluster_pushed_and_pulled_by_the_node(
    real_node: RealNodeCluster, build_service: BuildService, probe_base: str, contexts: ServedFiles
) -> None:
    registry = build_service.registry
    dockerfile = f"""FROM {registry}/{TOOLS_IN_REGISTRY} AS tools
RUN echo "written by a RUN step" > /ran.txt
FROM {probe_base}
COPY greeting.txt /greeting.txt
COPY --from=tools /ran.txt /ran.txt
ENV GREETING=hello-from-the-build
"""
    contexts.files["/ok.tar"] = context_tar({"Dockerfile": dockerfile, "greeting.txt": "hi\n"})
    namespace = real_node.create_namespace("build")
    job = create_builder_job(
        real_node, build_service, namespace, f"{contexts.base_url}/ok.tar", f"{registry}/built:1"
    )

    assert wait_for(
        "the builder Job to finish", lambda: job_outcome(job), timeout=_BUILD_TIMEOUT
    ) == ("Complete"), builder_log(real_node, namespace, job)
    assert contexts.requests["/ok.tar"] == 1
    assert registry_tags(build_service, "built") == ["1"]
    assert image_exists(build_service, "built", "1")
    assert not image_exists(build_service, "built", "2")
    config = registry_client.image_config(registry, "built", "1")
    assert "GREETING=hello-from-the-build" in config["config"]["Env"]
    assert config["config"]["Entrypoint"] == ["/probe"]  # FROM the probe image
    files = registry_client.image_file_names(registry, "built", "1")
    assert {"probe", "greeting.txt", "ran.txt"} <= files

    pod = Pod(
        {
            "metadata": {"name": "built", "namespace": namespace},
            "spec": {
                **real_node.pod_placement(),
                "terminationGracePeriodSeconds": 1,
                "containers": [
                    {
                        "name": "built",
                        "image": f"{registry}/built:1",
                        "imagePullPolicy": "Always",
                        "args": ["serve"],
                        "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
                    }
                ],
            },
        },
        api=real_node.api,
    )
    pod.create()
    try:
        wait_for("the built image's Pod Ready", lambda: pod_ready(pod), timeout=120)
    except TimeoutError as error:
        raise AssertionError(f"{error}: {pod.raw['status'].get('containerStatuses')}") from None
    # The runtime's image reference: pulled from the registry, by the digest it stores.
    image_id = pod.raw["status"]["containerStatuses"][0]["imageID"]
    assert image_id.startswith(f"{registry}/built@sha256:"), image_id


def test_a_failing_dockerfile_fails_the_job_and_the_log_says_why(
    real_node: RealNodeCluster, build_service: BuildService, probe_base: str, contexts: ServedFiles
) -> None:
    dockerfile = f"FROM {probe_base}\nCOPY missing-file.txt /missing-file.txt\n"
    contexts.files["/broken.tar"] = context_tar({"Dockerfile": dockerfile})
    namespace = real_node.create_namespace("build-fails")
    image = f"{build_service.registry}/broken:1"
    job = create_builder_job(
        real_node, build_service, namespace, f"{contexts.base_url}/broken.tar", image
    )

    assert wait_for(
        "the builder Job to finish", lambda: job_outcome(job), timeout=_BUILD_TIMEOUT
    ) == ("Failed")
    assert "missing-file.txt" in builder_log(real_node, namespace, job)
    assert registry_tags(build_service, "broken") == []


def test_a_registry_with_credentials_refuses_anonymous_clients_and_builds_push_with_them(
    real_node: RealNodeCluster, build_service: BuildService, contexts: ServedFiles
) -> None:
    credentials = ("builder", "s3cret-" + uuid.uuid4().hex[:6])
    guarded = deploy_build_service(
        real_node, real_node.create_namespace("build-auth"), credentials=credentials
    )
    with pytest.raises(registry_client.RegistryError) as refused:
        registry_client.list_tags(guarded.registry, "base")
    assert refused.value.status == 401
    base = push_image(guarded, real_node.node.binaries.probe_image, "base:1")
    assert registry_tags(guarded, "base") == ["1"]

    dockerfile = f"FROM {base}\nCOPY note.txt /note.txt\n"
    contexts.files["/auth.tar"] = context_tar({"Dockerfile": dockerfile, "note.txt": "x\n"})
    namespace = real_node.create_namespace("build-auth-job")
    token = base64.b64encode(":".join(credentials).encode()).decode()
    docker_config = json.dumps({"auths": {guarded.registry: {"auth": token}}})
    job = create_builder_job(
        real_node,
        guarded,
        namespace,
        f"{contexts.base_url}/auth.tar",
        f"{guarded.registry}/with-auth:1",
        docker_config=docker_config,
    )
    outcome = wait_for(
        "the builder Job to finish", lambda: job_outcome(job), timeout=_BUILD_TIMEOUT
    )
    assert outcome == "Complete", builder_log(real_node, namespace, job)
    assert image_exists(guarded, "with-auth", "1")


# -- helpers -------------------------------------------------------------------------------------


def context_tar(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def create_builder_job(
    real_node: RealNodeCluster,
    service: BuildService,
    namespace: str,
    context_url: str,
    image: str,
    *,
    docker_config: str | None = None,
) -> Job:
    """A builder Job shaped like the DynamoComponent controller's: download and untar the context
    into an emptyDir, then buildctl builds and pushes it through the cluster's BuildKit.
    ``docker_config``: a ``config.json`` with registry credentials, which buildctl reads from
    ``$DOCKER_CONFIG`` and hands to buildkitd for the pull and the push."""
    workspace = [{"name": "workspace", "mountPath": "/workspace"}]
    download = {
        "name": "download",
        "image": service.buildkit_image,
        "imagePullPolicy": "Never",
        "command": ["sh", "-c", 'wget -q -O - "$CONTEXT_URL" | tar -x -C /workspace'],
        "env": [{"name": "CONTEXT_URL", "value": context_url}],
        "volumeMounts": workspace,
    }
    builder: dict[str, Any] = {
        "name": "builder",
        "image": service.buildkit_image,
        "imagePullPolicy": "Never",
        "command": ["sh", "-c"],
        "args": [
            'buildctl --addr "$BUILDKIT_URL" build --frontend dockerfile.v0'
            " --local context=/workspace --local dockerfile=/workspace"
            ' --output "type=image,name=$IMAGE,push=true,registry.insecure=true"'
        ],
        "env": [
            {"name": "BUILDKIT_URL", "value": service.buildkit_url},
            {"name": "IMAGE", "value": image},
        ],
        "volumeMounts": list(workspace),
    }
    volumes: list[dict[str, Any]] = [{"name": "workspace", "emptyDir": {}}]
    name = f"image-builder-{uuid.uuid4().hex[:6]}"
    if docker_config is not None:
        secret = {"metadata": {"name": name, "namespace": namespace}}
        Secret(secret | {"stringData": {"config.json": docker_config}}, api=real_node.api).create()
        volumes.append({"name": "docker-config", "secret": {"secretName": name}})
        builder["env"].append({"name": "DOCKER_CONFIG", "value": "/docker-config"})
        builder["volumeMounts"].append({"name": "docker-config", "mountPath": "/docker-config"})
    pod_spec = {
        **real_node.pod_placement(),
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": 1,
        "initContainers": [download],
        "containers": [builder],
        "volumes": volumes,
    }
    job = Job(
        {
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"backoffLimit": 0, "template": {"spec": pod_spec}},
        },
        api=real_node.api,
    )
    job.create()
    return job


def job_outcome(job: Job) -> str | None:
    """``Complete`` or ``Failed`` once the Job has that condition."""
    job.refresh()
    for condition in job.raw.get("status", {}).get("conditions") or []:
        if condition["type"] in ("Complete", "Failed") and condition["status"] == "True":
            return str(condition["type"])
    return None


def builder_log(real_node: RealNodeCluster, namespace: str, job: Job) -> str:
    """The ``builder`` container's log of the Job's Pods."""
    query = f"?labelSelector=job-name%3D{job.name}"
    pods = real_node.cluster.admin_client().get(f"/api/v1/namespaces/{namespace}/pods{query}")
    names = [pod["metadata"]["name"] for pod in pods["items"]]
    return "\n".join(real_node.pod_logs(namespace, name, "builder") for name in names)


def pod_ready(pod: Pod) -> bool:
    pod.refresh()
    conditions = pod.raw.get("status", {}).get("conditions") or []
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)
