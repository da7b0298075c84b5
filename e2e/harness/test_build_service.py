"""The build service on the real node: a builder Job downloads a context, BuildKit (through the
cluster's buildkitd) or kaniko (its executor in the Job) builds its Dockerfile and pushes the image
to the registry, and the node's containerd pulls it from there.

The same path the DynamoComponent controller's builder Jobs take (``e2e.support.builder_jobs``),
with nothing mocked: every assertion is about something the registry stores or a container that
really ran from the pulled image.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator

import pytest
from kr8s.objects import Pod

from e2e.localcluster import is_condition_true, wait_for
from e2e.support import registry_client
from e2e.support.build_service import (
    TOOLS_IN_REGISTRY,
    BuildService,
    deploy_build_service,
    image_exists,
    push_image,
    registry_tags,
)
from e2e.support.builder_jobs import (
    Engine,
    builder_log,
    context_tar,
    create_builder_job,
    job_outcome,
)
from e2e.support.file_server import ServedFiles, serve_files
from e2e.support.real_node import RealNodeCluster

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

ENGINES: list[Engine] = ["buildkit", "kaniko"]
_BUILD_TIMEOUT = 300.0


@pytest.fixture(scope="module")
def probe_base(real_node: RealNodeCluster, build_service: BuildService) -> str:
    """The node's probe image, pushed to the registry: the base the Dockerfiles build on."""
    return push_image(build_service, real_node.node.binaries.probe_image, "probe:1")


@pytest.fixture(scope="module")
def contexts(real_node: RealNodeCluster) -> Iterator[ServedFiles]:
    """Build contexts served on the node IP (Pods cannot reach the host's loopback)."""
    with serve_files(real_node.node.node_ip, {}) as served:
        yield served


@pytest.mark.parametrize("engine", ENGINES)
def test_a_dockerfile_is_built_in_the_cluster_pushed_and_pulled_by_the_node(
    real_node: RealNodeCluster,
    build_service: BuildService,
    probe_base: str,
    contexts: ServedFiles,
    engine: Engine,
) -> None:
    registry = build_service.registry
    # A RUN step needs a shell: the probe image has none, so it runs in a busybox stage.
    dockerfile = f"""FROM {registry}/{TOOLS_IN_REGISTRY} AS tools
RUN echo "written by a RUN step" > /ran.txt
FROM {probe_base}
COPY greeting.txt /greeting.txt
COPY --from=tools /ran.txt /ran.txt
ENV GREETING=hello-from-{engine}
"""
    path = f"/{engine}.tar"
    contexts.files[path] = context_tar({"Dockerfile": dockerfile, "greeting.txt": "hi\n"})
    namespace = real_node.create_namespace(f"build-{engine}")
    repository = f"built-{engine}"
    job = create_builder_job(
        real_node,
        build_service,
        namespace,
        contexts.base_url + path,
        f"{registry}/{repository}:1",
        engine=engine,
    )

    outcome = wait_for(
        "the builder Job to finish", lambda: job_outcome(real_node, job), timeout=_BUILD_TIMEOUT
    )
    assert outcome == "Complete", builder_log(real_node, namespace, job)
    assert contexts.requests[path] == 1
    assert registry_tags(build_service, repository) == ["1"]
    assert image_exists(build_service, repository, "1")
    assert not image_exists(build_service, repository, "2")
    config = registry_client.image_config(registry, repository, "1")
    assert f"GREETING=hello-from-{engine}" in config["config"]["Env"]
    assert config["config"]["Entrypoint"] == ["/probe"]  # FROM the probe image
    files = registry_client.image_file_names(registry, repository, "1")
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
                        "image": f"{registry}/{repository}:1",
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
    assert image_id.startswith(f"{registry}/{repository}@sha256:"), image_id


# With BuildKit, the operator's own e2e (test_dynamo_component_builds.py) fails a build this way.
@pytest.mark.parametrize("engine", ["kaniko"])
def test_a_failing_dockerfile_fails_the_job_and_the_log_says_why(
    real_node: RealNodeCluster,
    build_service: BuildService,
    probe_base: str,
    contexts: ServedFiles,
    engine: Engine,
) -> None:
    dockerfile = f"FROM {probe_base}\nCOPY missing-file.txt /missing-file.txt\n"
    path = f"/broken-{engine}.tar"
    contexts.files[path] = context_tar({"Dockerfile": dockerfile})
    namespace = real_node.create_namespace(f"build-fails-{engine}")
    repository = f"broken-{engine}"
    image = f"{build_service.registry}/{repository}:1"
    job = create_builder_job(
        real_node, build_service, namespace, contexts.base_url + path, image, engine=engine
    )

    outcome = wait_for(
        "the builder Job to finish", lambda: job_outcome(real_node, job), timeout=_BUILD_TIMEOUT
    )
    assert outcome == "Failed"
    assert "missing-file.txt" in builder_log(real_node, namespace, job)
    assert registry_tags(build_service, repository) == []


# With BuildKit, the operator's own e2e pushes to a registry behind credentials.
@pytest.mark.parametrize("engine", ["kaniko"])
def test_a_registry_with_credentials_refuses_anonymous_clients_and_builds_push_with_them(
    real_node: RealNodeCluster,
    contexts: ServedFiles,
    engine: Engine,
    guarded: BuildService,
) -> None:
    with pytest.raises(registry_client.RegistryError) as refused:
        registry_client.list_tags(guarded.registry, "base")
    assert refused.value.status == 401
    base = push_image(guarded, real_node.node.binaries.probe_image, "base:1")
    assert "1" in registry_tags(guarded, "base")

    dockerfile = f"FROM {base}\nCOPY note.txt /note.txt\n"
    path = f"/auth-{engine}.tar"
    contexts.files[path] = context_tar({"Dockerfile": dockerfile, "note.txt": "x\n"})
    namespace = real_node.create_namespace(f"build-auth-{engine}")
    assert guarded.credentials is not None
    token = base64.b64encode(":".join(guarded.credentials).encode()).decode()
    docker_config = json.dumps({"auths": {guarded.registry: {"auth": token}}})
    job = create_builder_job(
        real_node,
        guarded,
        namespace,
        contexts.base_url + path,
        f"{guarded.registry}/with-auth-{engine}:1",
        engine=engine,
        docker_config=docker_config,
    )
    outcome = wait_for(
        "the builder Job to finish", lambda: job_outcome(real_node, job), timeout=_BUILD_TIMEOUT
    )
    assert outcome == "Complete", builder_log(real_node, namespace, job)
    assert image_exists(guarded, f"with-auth-{engine}", "1")


@pytest.fixture(scope="module")
def guarded(real_node: RealNodeCluster, build_service: BuildService) -> BuildService:
    """A second build service whose registry requires a username and password (htpasswd)."""
    credentials = ("builder", "s3cret-" + uuid.uuid4().hex[:6])
    namespace = real_node.create_namespace("build-auth")
    return deploy_build_service(real_node, namespace, credentials=credentials)


def pod_ready(pod: Pod) -> bool:
    pod.refresh()
    return is_condition_true(pod.raw, "Ready")
