"""Graphs deployed from built artifacts, end to end on the real node (seed 000's workflow): a
graph names ``web:<version>``, the operator creates the DynamoComponent, checks the registry,
builds the image with a builder Job (BuildKit, as a real daemon), pushes it to a real registry,
and the graph's pods run it, pulled by the node's containerd.

The artifact is a tar this test publishes on an API-store stand-in (``dynamo.yaml`` plus
``env/docker/Dockerfile`` ``FROM`` the probe image, pushed to the registry first). The operator
runs as a process (``dynamo-operator run``) against the real node's control plane, configured by
the environment variables users set through the chart's ``imageBuild`` values.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_operator.status import Reasons
from e2e.localcluster import condition, is_condition_true, wait_for
from e2e.localcluster.controlplane.admin_client import AdminClient
from e2e.support.api_store import ApiStore, running_api_store
from e2e.support.build_service import (
    BuildService,
    deploy_build_service,
    image_exists,
    push_image,
)
from e2e.support.crds import install_crds
from e2e.support.graphs import component_name
from e2e.support.kinds import COMPONENT, DYNAMO_COMPONENT, GRAPH
from e2e.support.operator_process import OperatorProcess, running_operator
from e2e.support.real_node import RealNodeCluster

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

REPOSITORY = "dynamo-components"
CLAIMED = "namespace claimed by a namespace-restricted operator"
BUILD = 240.0
"""Seconds a build and rollout may take on this shared 2-core machine (a build alone: ~6 s)."""


def artifact(registry: str, version: str, *, dockerfile: str | None = None) -> dict[str, str]:
    """The files of artifact ``web:<version>``: one service, ``Web``, built ``FROM`` the probe."""
    manifest = {
        "service": "graphs.web:Web",
        "entry_service": "Web",
        "services": [{"name": "Web", "config": {"workers": 1, "dynamo": {"enabled": True}}}],
    }
    return {
        "dynamo.yaml": yaml.safe_dump(manifest),
        "greeting.txt": f"hello from {version}\n",
        "env/docker/Dockerfile": dockerfile
        or (f"FROM {registry}/probe:1\nCOPY greeting.txt /greeting.txt\nENV GREETING={version}\n"),
    }


@dataclass
class Builds:
    node: RealNodeCluster
    service: BuildService
    store: ApiStore
    operator: OperatorProcess
    admin: AdminClient
    namespace: str

    def publish(self, version: str, **kwargs: Any) -> str:
        return self.store.publish(
            f"web:{version}", artifact(self.service.registry, version, **kwargs)
        )

    def get(self, path: str) -> dict[str, Any] | None:
        return self.admin.find(path)

    def graph(self, name: str, version: str, namespace: str | None = None) -> dict[str, Any]:
        namespace = namespace or self.namespace
        body = {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoGraphDeployment",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "dynamoComponent": f"web:{version}",
                "services": {
                    "Web": {
                        "extraPodSpec": {
                            **self.node.pod_placement(),
                            "terminationGracePeriodSeconds": 1,
                            "mainContainer": {"args": ["serve", "8080"]},
                        },
                        "pvc": {"name": f"{name}-data", "mountPath": "/data", "size": "1Gi"},
                    }
                },
            },
        }
        self._volume_for(namespace, f"{name}-data")
        return self.admin.create(GRAPH.collection_path(namespace), body)

    def _volume_for(self, namespace: str, claim: str) -> None:
        """The local cluster has no provisioner: a hostPath volume reserved for the claim."""
        self.admin.create(
            "/api/v1/persistentvolumes",
            {
                "metadata": {"name": f"{namespace}-{claim}"},
                "spec": {
                    "capacity": {"storage": "1Gi"},
                    "accessModes": ["ReadWriteOnce"],
                    "hostPath": {"path": f"/tmp/{namespace}-{claim}"},
                    "claimRef": {"namespace": namespace, "name": claim},
                },
            },
        )

    def set_version(self, name: str, version: str) -> None:
        path = GRAPH.object_path(self.namespace, name)
        self.admin.patch(path, {"spec": {"dynamoComponent": f"web:{version}"}})

    def successful(self, name: str, namespace: str | None = None) -> dict[str, Any]:
        path = GRAPH.object_path(namespace or self.namespace, name)

        def done() -> dict[str, Any] | None:
            graph = self.admin.get(path)
            status = graph.get("status") or {}
            fresh = status.get("observedGeneration") == graph["metadata"]["generation"]
            return graph if fresh and status.get("state") == "successful" else None

        try:
            return wait_for(f"graph {name} successful", done, timeout=BUILD, interval=1.0)
        except TimeoutError as error:
            raise TimeoutError(f"{error}\n{self.describe(namespace or self.namespace)}") from None

    def describe(self, namespace: str) -> str:
        """What a failing wait shows: statuses of the graphs, components and Jobs, the pods'
        states, the operator's last log lines."""
        lines = []
        for kind in (GRAPH, DYNAMO_COMPONENT, COMPONENT):
            for obj in self.admin.get(kind.collection_path(namespace))["items"]:
                lines.append(f"{kind.kind} {obj['metadata']['name']}: {obj.get('status')}")
        for job in self.jobs(namespace):
            lines.append(f"Job {job['metadata']['name']}: {job.get('status')}")
        for pod in self.admin.get(f"/api/v1/namespaces/{namespace}/pods")["items"]:
            status = pod.get("status") or {}
            states = [c.get("state") for c in status.get("containerStatuses") or []]
            lines.append(f"Pod {pod['metadata']['name']}: {status.get('phase')} {states}")
        return "\n".join([*lines, self.operator.tail(30)])

    def component(self, version: str, namespace: str | None = None) -> dict[str, Any] | None:
        return self.get(
            DYNAMO_COMPONENT.object_path(namespace or self.namespace, f"web--{version}")
        )

    def available(self, component: dict[str, Any] | None) -> dict[str, Any]:
        return condition(component, "DynamoComponentAvailable")

    def pods(self, graph: str, namespace: str | None = None) -> list[dict[str, Any]]:
        selector = f"nvidia.com/selector={component_name(graph, 'Web')}"
        path = f"/api/v1/namespaces/{namespace or self.namespace}/pods?labelSelector={selector}"
        return [
            p for p in self.admin.get(path)["items"] if not p["metadata"].get("deletionTimestamp")
        ]

    def jobs(self, namespace: str | None = None) -> list[dict[str, Any]]:
        path = f"/apis/batch/v1/namespaces/{namespace or self.namespace}/jobs"
        return list(self.admin.get(path)["items"])

    def create_component(
        self, version: str, namespace: str | None = None, **spec: str
    ) -> dict[str, Any]:
        """A DynamoComponent ``web--<version>`` made directly (not through a graph)."""
        return self.admin.create(
            DYNAMO_COMPONENT.collection_path(namespace or self.namespace),
            {
                "apiVersion": "nvidia.com/v1alpha1",
                "kind": "DynamoComponent",
                "metadata": {"name": f"web--{version}"},
                "spec": {"dynamoComponent": f"web:{version}", **spec},
            },
        )

    @contextmanager
    def restricted_operator(
        self, namespace: str, log_dir: Path, env: dict[str, str]
    ) -> Iterator[OperatorProcess]:
        """A second operator restricted to ``namespace``, once the cluster-wide one left it."""
        with running_operator(
            self.node.kubeconfig,
            log_dir,
            f"--restrictedNamespace={namespace}",
            env={**env, "POD_NAMESPACE": namespace},
            name=namespace,
        ) as operator:
            self.wait_claimed(namespace)
            yield operator

    def wait_claimed(self, namespace: str) -> None:
        """Until the cluster-wide operator has seen a namespace-restricted operator claim
        ``namespace`` (before that, both would build there)."""

        def claimed() -> bool:
            return any(
                r.get("msg") == CLAIMED and r.get("namespace") == namespace
                for r in self.operator.logs()
            )

        wait_for(f"{namespace} claimed", claimed, timeout=60)

    def image(self, version: str) -> str:
        return f"{self.service.registry}/{REPOSITORY}:dynamo.web.{version}"


def _running_image(pods: list[dict[str, Any]]) -> set[str]:
    return {c["image"] for p in pods for c in p["status"].get("containerStatuses") or []}


def _image_build_env(service: BuildService, store: ApiStore) -> dict[str, str]:
    """The operator's image-build settings, as the chart's imageBuild values set them."""
    return {
        "API_STORE_ENDPOINT": store.endpoint,
        "DOCKER_REGISTRY_SERVER": service.registry,
        "DOCKER_REGISTRY_SECURE": "false",
        "BUILDKIT_URL": service.buildkit_url,
        "INTERNAL_IMAGES_BUILDKIT": service.buildkit_image,
        "INTERNAL_IMAGES_DYNAMO_COMPONENTS_DOWNLOADER": service.tools_image,
    }


def _builder_config(admin: AdminClient, namespace: str, real_node: RealNodeCluster) -> None:
    """Builder pods go to the real node (kwok's nodes take everything without the toleration)."""
    admin.create(
        f"/api/v1/namespaces/{namespace}/configmaps",
        {
            "metadata": {"name": "dynamo-image-builder-config"},
            "data": {"extra_pod_spec": yaml.safe_dump(real_node.pod_placement())},
        },
    )


@pytest.fixture(scope="module")
def builds(
    real_node: RealNodeCluster,
    build_service: BuildService,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Builds]:
    install_crds(real_node.api)
    push_image(build_service, real_node.node.binaries.probe_image, "probe:1")
    namespace = real_node.create_namespace("builds")
    admin = real_node.cluster.admin_client()
    _builder_config(admin, namespace, real_node)
    with running_api_store(real_node.node.node_ip) as store:
        env = {
            **_image_build_env(build_service, store),
            "DYNAMO_IMAGE_BUILDER_NAMESPACE": namespace,
            "POD_NAMESPACE": namespace,
        }
        logs = tmp_path_factory.mktemp("operator")
        with running_operator(real_node.kubeconfig, logs, env=env) as operator:
            yield Builds(real_node, build_service, store, operator, admin, namespace)


def test_a_graph_naming_an_artifact_runs_the_image_built_from_it(builds: Builds) -> None:
    builds.publish("v1")
    builds.graph("shop", "v1")

    graph = builds.successful("shop")

    component = builds.component("v1")
    assert is_condition_true(component, "DynamoComponentAvailable")
    assert (component or {})["status"]["image"] == builds.image("v1")
    assert image_exists(builds.service, REPOSITORY, "dynamo.web.v1")
    [job] = builds.jobs()
    assert job["status"].get("succeeded") == 1
    pods = builds.pods("shop")
    assert [p["spec"]["nodeName"] for p in pods] == [builds.node.node_name]
    assert _running_image(pods) == {builds.image("v1")}
    # Pulled from the registry by the node: the image ID is the registry's digest.
    [status] = pods[0]["status"]["containerStatuses"]
    assert status["imageID"].startswith(f"{builds.service.registry}/{REPOSITORY}@sha256:")
    dcd = builds.get(COMPONENT.object_path(builds.namespace, component_name("shop", "Web")))
    assert (dcd or {})["spec"]["dynamoComponent"] == "web:v1"
    claim = builds.get(f"/api/v1/namespaces/{builds.namespace}/persistentvolumeclaims/shop-data")
    assert (claim or {})["status"]["phase"] == "Bound"
    assert graph["status"]["state"] == "successful"


def test_a_second_graph_naming_the_same_artifact_builds_nothing(builds: Builds) -> None:
    other = builds.node.create_namespace("builds-other")
    downloads = sum(builds.store.downloads.values())

    builds.graph("shop", "v1", namespace=other)
    builds.successful("shop", namespace=other)

    component = builds.component("v1", namespace=other)
    assert builds.available(component)["reason"] == "ImageFound"
    assert builds.jobs(other) == []
    assert sum(builds.store.downloads.values()) == downloads  # not even the artifact again
    assert _running_image(builds.pods("shop", other)) == {builds.image("v1")}


def test_a_new_tag_builds_while_the_old_pods_serve_then_rolls_onto_it(builds: Builds) -> None:
    [old_pod] = builds.pods("shop")
    claim_path = f"/api/v1/namespaces/{builds.namespace}/persistentvolumeclaims/shop-data"
    claim_uid = builds.admin.get(claim_path)["metadata"]["uid"]
    builds.publish("v2", dockerfile=_slow_dockerfile(builds, "v2", seconds=8))

    builds.set_version("shop", "v2")

    def building() -> dict[str, Any] | None:
        ready = condition(builds.admin.get(GRAPH.object_path(builds.namespace, "shop")), "Ready")
        return ready if "web--v2" in ready.get("message", "") else None

    waiting = wait_for("the graph waiting for web--v2", building, timeout=BUILD)
    assert waiting["status"] == "False"
    # While the new image builds, the old pod keeps running the old one.
    assert _running_image(builds.pods("shop")) == {builds.image("v1")}
    assert builds.pods("shop")[0]["metadata"]["uid"] == old_pod["metadata"]["uid"]

    builds.successful("shop")
    assert _running_image(builds.pods("shop")) == {builds.image("v2")}
    assert builds.admin.get(claim_path)["metadata"]["uid"] == claim_uid  # the data stays
    # The earlier tag's component goes once no graph names it.
    wait_for("web--v1 deleted", lambda: builds.component("v1") is None, timeout=60)


def test_a_failing_build_says_why_and_a_fixed_tag_recovers(builds: Builds) -> None:
    broken = "FROM scratch\nCOPY missing-file.txt /\n"
    builds.publish("broken", dockerfile=broken)

    builds.set_version("shop", "broken")

    def failed() -> dict[str, Any] | None:
        graph = builds.admin.get(GRAPH.object_path(builds.namespace, "shop"))
        return graph if (graph.get("status") or {}).get("state") == "failed" else None

    graph = wait_for("the graph failed by its component", failed, timeout=BUILD)
    ready = condition(graph, "Ready")
    assert ready["reason"] == "DynamoComponentNotReady"
    assert ready["message"].startswith("DynamoComponent web--broken: ")
    assert "missing-file.txt" in ready["message"]  # the builder's own words
    available = builds.available(builds.component("broken"))
    assert (available["status"], available["reason"]) == ("False", "BuildFailed")
    assert _running_image(builds.pods("shop")) == {builds.image("v2")}  # still serving

    builds.publish("v3")
    builds.set_version("shop", "v3")
    builds.successful("shop")
    assert _running_image(builds.pods("shop")) == {builds.image("v3")}


def test_a_build_past_its_timeout_fails_as_timed_out(builds: Builds) -> None:
    builds.publish("slow", dockerfile=_slow_dockerfile(builds, "slow", seconds=120))
    builds.create_component("slow", imageBuildTimeout="15s")

    def timed_out() -> dict[str, Any] | None:
        available = builds.available(builds.component("slow"))
        return available if available.get("reason") == "BuildTimedOut" else None

    available = wait_for("the build timed out", timed_out, timeout=BUILD)
    assert available["status"] == "False"
    assert "ran past the build timeout" in available["message"]
    assert not image_exists(builds.service, REPOSITORY, "dynamo.web.slow")


def _slow_dockerfile(builds: Builds, version: str, *, seconds: int) -> str:
    """A build that takes ``seconds`` (a RUN in the busybox base), then the probe as usual."""
    registry = builds.service.registry
    return (
        f"FROM {registry}/build-tools:1 AS wait\nRUN sleep {seconds} && touch /done\n"
        f"FROM {registry}/probe:1\nCOPY --from=wait /done /done\nCOPY greeting.txt /greeting.txt\n"
        f"ENV GREETING={version}\n"
    )


@pytest.mark.parametrize("engine", ["buildkit", "kaniko"])
def test_a_namespace_restricted_operator_builds_in_its_namespace_only(
    builds: Builds, tmp_path: Path, engine: str
) -> None:
    team = builds.node.create_namespace("team")
    _builder_config(builds.admin, team, builds.node)
    version = f"team-{engine}"
    builds.publish(version)
    env = {
        **_image_build_env(builds.service, builds.store),
        "DYNAMO_IMAGE_BUILD_ENGINE": engine,
        "INTERNAL_IMAGES_KANIKO": str(builds.service.kaniko_image),
    }
    jobs_elsewhere = len(builds.jobs())
    with builds.restricted_operator(team, tmp_path, env) as restricted:
        builds.graph("shop", version, namespace=team)
        builds.successful("shop", namespace=team)

        [job] = builds.jobs(team)
        assert job["status"].get("succeeded") == 1
        assert len(builds.jobs()) == jobs_elsewhere
        assert _running_image(builds.pods("shop", team)) == {builds.image(version)}
        assert restricted.reconciles("dynamocomponent") > 0


def test_a_registry_behind_credentials_is_checked_pushed_to_and_pulled_from_with_them(
    builds: Builds, tmp_path: Path
) -> None:
    team = builds.node.create_namespace("secure")
    secure = deploy_build_service(builds.node, team, credentials=("robot", "s3cret"))
    push_image(secure, builds.node.node.binaries.probe_image, "probe:1")
    # An image already there: found by a check that must authenticate (anonymous gets 401).
    push_image(secure, builds.node.node.binaries.probe_image, f"{REPOSITORY}:dynamo.web.there")
    _builder_config(builds.admin, team, builds.node)
    auth = base64.b64encode(b"robot:s3cret").decode()
    config = json.dumps({"auths": {secure.registry: {"auth": auth}}})
    builds.admin.create(
        f"/api/v1/namespaces/{team}/secrets",
        {
            "metadata": {"name": "push"},
            "type": "kubernetes.io/dockerconfigjson",
            "data": {".dockerconfigjson": base64.b64encode(config.encode()).decode()},
        },
    )
    builds.store.publish("web:secure1", artifact(secure.registry, "secure1"))
    env = {**_image_build_env(secure, builds.store), "DOCKER_REGISTRY_SECRET_NAME": "push"}
    with builds.restricted_operator(team, tmp_path, env):
        builds.create_component("there", team)

        def found() -> dict[str, Any] | None:
            component = builds.component("there", team)
            ready = is_condition_true(component, "DynamoComponentAvailable")
            return builds.available(component) if ready else None

        assert wait_for("web--there found", found, timeout=BUILD)["reason"] == "ImageFound"

        builds.graph("shop", "secure1", namespace=team)
        builds.successful("shop", namespace=team)
        image = f"{secure.registry}/{REPOSITORY}:dynamo.web.secure1"
        [pod] = builds.pods("shop", team)
        assert _running_image([pod]) == {image}
        # Pulled with the Secret the operator found for the registry's host.
        assert {"name": "push"} in pod["spec"]["imagePullSecrets"]
        # Found: nothing was built for it. (Once this operator stops, the cluster-wide one takes
        # the namespace over with its own registry: checked before.)
        assert [j for j in builds.jobs(team) if "there" in j["metadata"]["name"]] == []


def test_a_component_naming_an_artifact_waits_for_and_runs_its_dynamo_components_image(
    builds: Builds,
) -> None:
    builds.publish("solo")
    path = COMPONENT.object_path(builds.namespace, "solo")
    builds.admin.create(
        COMPONENT.collection_path(builds.namespace),
        {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoComponentDeployment",
            "metadata": {"name": "solo"},
            "spec": {
                "dynamoComponent": "web:solo",
                "replicas": 1,
                "extraPodSpec": {
                    **builds.node.pod_placement(),
                    "mainContainer": {"args": ["serve", "8080"]},
                },
            },
        },
    )

    def waiting() -> dict[str, Any] | None:
        available = condition(builds.get(path), "Available")
        return available if available.get("reason") == "DynamoComponentNotReady" else None

    message = wait_for("solo waiting", waiting, timeout=60)["message"]
    assert message == "DynamoComponent web--solo: not created yet"

    builds.create_component("solo")

    def available() -> bool:
        return is_condition_true(builds.get(path), "Available")

    wait_for("solo available", available, timeout=BUILD)
    selector = "nvidia.com/selector=solo"
    pods = builds.admin.get(f"/api/v1/namespaces/{builds.namespace}/pods?labelSelector={selector}")
    assert _running_image(pods["items"]) == {builds.image("solo")}


def test_deleting_a_dynamo_component_stops_its_build(builds: Builds) -> None:
    builds.publish("gone", dockerfile=_slow_dockerfile(builds, "gone", seconds=300))
    path = DYNAMO_COMPONENT.object_path(builds.namespace, "web--gone")
    builds.create_component("gone")

    def building() -> bool:
        return builds.available(builds.get(path)).get("reason") == "Building"

    wait_for("web--gone building", building, timeout=BUILD)
    builds.admin.delete(path)

    def stopped() -> bool:
        selector = "nvidia.com/dynamo-component=web--gone"
        jobs = builds.admin.get(
            f"/apis/batch/v1/namespaces/{builds.namespace}/jobs?labelSelector={selector}"
        )
        pods = builds.admin.get(
            f"/api/v1/namespaces/{builds.namespace}/pods?labelSelector={selector}"
        )
        return not jobs["items"] and not pods["items"]

    wait_for("the build's Job and pod gone", stopped, timeout=120)


def test_a_builder_job_the_api_server_refuses_is_reported_not_retried(
    builds: Builds, tmp_path: Path
) -> None:
    team = builds.node.create_namespace("badcfg")
    builds.admin.create(
        f"/api/v1/namespaces/{team}/configmaps",
        {
            "metadata": {"name": "dynamo-image-builder-config"},
            "data": {"extra_pod_spec": yaml.safe_dump({"nodeSelector": {"no spaces": "x"}})},
        },
    )
    builds.publish("refused")
    with builds.restricted_operator(team, tmp_path, _image_build_env(builds.service, builds.store)):
        builds.create_component("refused", team)

        def refused() -> dict[str, Any] | None:
            available = builds.available(builds.component("refused", team))
            return available if available.get("reason") == Reasons.RECONCILE_FAILED else None

        available = wait_for("the refused Job reported", refused, timeout=BUILD)
        assert available["status"] == "False"
        assert "nodeSelector" in available["message"]  # the API server's own words
        assert builds.jobs(team) == []
