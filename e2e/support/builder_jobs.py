"""Image builder Jobs for tests, shaped like the DynamoComponent controller's (upstream's
``dynamo-image-builder-*``): an init container downloads the build context tar over HTTP and
untars it into an emptyDir, then the ``builder`` container builds the Dockerfile in it and pushes
the image, with BuildKit (``buildctl`` against the cluster's buildkitd) or kaniko (its executor in
the Pod). A reference of specs known to work on the real node with ``build_service``::

    job = create_builder_job(real_node, build_service, namespace, url, f"{registry}/x:1")
    assert wait_for("build", lambda: job_outcome(real_node, job), timeout=300) == "Complete"

``context_tar(files)`` makes a context; ``builder_log(...)`` reads the ``builder`` container's log
(a failed build's reason: BuildKit and kaniko both name the failing instruction and file).
"""

from __future__ import annotations

import io
import tarfile
import uuid
from typing import Any, Literal

from kr8s.objects import Job, Secret

from e2e.localcluster import is_condition_true
from e2e.support.build_service import BuildService
from e2e.support.real_node import RealNodeCluster

Engine = Literal["buildkit", "kaniko"]
_WORKSPACE = "/workspace"


def context_tar(files: dict[str, str]) -> bytes:
    """An uncompressed tar of ``files`` (name -> text), as the artifact download serves it."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def builder_container(service: BuildService, engine: Engine, image: str) -> dict[str, Any]:
    """The ``builder`` container: build ``/workspace/Dockerfile`` and push ``image`` over plain
    HTTP."""
    mounts = [{"name": "workspace", "mountPath": _WORKSPACE}]
    if engine == "kaniko":
        if service.kaniko_image is None:
            raise ValueError("this build service has no kaniko image")
        return {
            "name": "builder",
            "image": service.kaniko_image,
            "imagePullPolicy": "Never",
            "args": [
                f"--context=dir://{_WORKSPACE}",
                f"--dockerfile={_WORKSPACE}/Dockerfile",
                f"--destination={image}",
                "--insecure",  # push over HTTP
                "--insecure-pull",  # FROM over HTTP (ggcr already uses HTTP for RFC 1918 hosts)
            ],
            "env": [],
            "volumeMounts": mounts,
        }
    return {
        "name": "builder",
        "image": service.buildkit_image,
        "imagePullPolicy": "Never",
        "command": ["sh", "-c"],
        "args": [
            'buildctl --addr "$BUILDKIT_URL" build --frontend dockerfile.v0'
            f" --local context={_WORKSPACE} --local dockerfile={_WORKSPACE}"
            ' --output "type=image,name=$IMAGE,push=true,registry.insecure=true"'
        ],
        "env": [
            {"name": "BUILDKIT_URL", "value": service.buildkit_url},
            {"name": "IMAGE", "value": image},
        ],
        "volumeMounts": mounts,
    }


def create_builder_job(
    real_node: RealNodeCluster,
    service: BuildService,
    namespace: str,
    context_url: str,
    image: str,
    *,
    engine: Engine = "buildkit",
    docker_config: str | None = None,
) -> Job:
    """Create the Job (no retries: ``backoffLimit: 0``). ``docker_config``: a ``config.json`` with
    registry credentials, in a Secret mounted at ``$DOCKER_CONFIG``, where buildctl (which hands
    them to buildkitd) and kaniko read them for the pull and the push."""
    download = {
        "name": "download",
        "image": service.tools_image,
        "imagePullPolicy": "Never",
        "command": ["sh", "-c", f'wget -q -O - "$CONTEXT_URL" | tar -x -C {_WORKSPACE}'],
        "env": [{"name": "CONTEXT_URL", "value": context_url}],
        "volumeMounts": [{"name": "workspace", "mountPath": _WORKSPACE}],
    }
    builder = builder_container(service, engine, image)
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


def job_outcome(real_node: RealNodeCluster, job: Job) -> str | None:
    """``Complete`` or ``Failed`` once the Job has that condition."""
    path = f"/apis/batch/v1/namespaces/{job.namespace}/jobs/{job.name}"
    live = real_node.cluster.admin_client().get(path)
    return next((end for end in ("Complete", "Failed") if is_condition_true(live, end)), None)


def builder_log(real_node: RealNodeCluster, namespace: str, job: Job) -> str:
    """The ``builder`` container's log of the Job's Pods."""
    query = f"?labelSelector=job-name%3D{job.name}"
    pods = real_node.cluster.admin_client().get(f"/api/v1/namespaces/{namespace}/pods{query}")
    names = [pod["metadata"]["name"] for pod in pods["items"]]
    return "\n".join(real_node.pod_logs(namespace, name, "builder") for name in names)
