"""The admission webhooks behind a real kube-apiserver.

The server runs on 127.0.0.1 (the standalone command, or the in-process server with
operator-managed certificates) and a URL-based ValidatingWebhookConfiguration points at it. Each
configuration selects only the test's own namespace, so a failing or stopped server never blocks
other tests running against the same control plane.
"""

from __future__ import annotations

import base64
import functools
import json
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio.from_thread
import kr8s
import kr8s.asyncio
import pytest
from kr8s.objects import Secret

import dynamo_operator.validation
from e2e.localcluster import ensure_binaries
from e2e.localcluster.ports import free_port
from e2e.support.webhooks import (
    DynamoGraphDeployment,
    create_configuration,
    create_rejection,
    graph,
    invalid_graph,
    start_webhook_server,
    wait_until_webhook_denies,
)
from manager.runtime.client.aiohttp_transport import AiohttpTransport
from manager.runtime.client.rest import RestClient
from manager.runtime.tls.key_pair import LOCAL_IP_ADDRESSES
from webhooks.certificates.operator_managed import (
    FIELD_MANAGER,
    SECRET_NAME,
    OperatorManagedCertificates,
)
from webhooks.certificates.rotation import CertificatePolicy, ManagedCertificates
from webhooks.server import WebhookServer

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]


@pytest.fixture(scope="module")
def crds(installed_crds: list[Any]) -> None:
    """The CRDs and their conversion webhook (the session's)."""


@pytest.fixture
def standalone_server(tmp_path: Path) -> Iterator[tuple[int, bytes]]:
    """`dynamo-operator webhook-server` on 127.0.0.1; yields its port and CA."""
    port = free_port()
    process = start_webhook_server(port, tmp_path)
    try:
        yield port, (tmp_path / "ca.crt").read_bytes()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_replica_edit_of_an_adapted_service_is_refused_except_to_planners(
    kr8s_api: kr8s.Api,
    kubeconfig: Path,
    crds: None,
    namespace: str,
    standalone_server: tuple[int, bytes],
) -> None:
    """Through the API server, as `kubectl` users: while a scaling adapter owns a service's
    replicas, the cluster admin's edit is refused naming the field and the adapter to scale,
    at v1alpha1 and v1beta1; a planner's service account (impersonated) may."""
    port, ca_pem = standalone_server
    configuration = create_configuration(kr8s_api, namespace, port, ca_pem)
    try:
        wait_until_webhook_denies(kr8s_api, namespace)
        adapted = graph(namespace, name="adapted")
        adapted["spec"]["services"]["VllmWorker"]["scalingAdapter"] = {"enabled": True}
        DynamoGraphDeployment(adapted, api=kr8s_api).create()

        def kubectl(*arguments: str) -> subprocess.CompletedProcess[str]:
            binary = ensure_binaries(show_progress=False).kube("kubectl")
            return subprocess.run(
                [str(binary), f"--kubeconfig={kubeconfig}", "-n", namespace, *arguments],
                capture_output=True, text=True, timeout=60, check=False,
            )  # fmt: skip

        alpha_kind, beta_kind = (
            f"dynamographdeployments.{version}.nvidia.com" for version in ("v1alpha1", "v1beta1")
        )
        alpha = '{"spec":{"services":{"VllmWorker":{"replicas":3}}}}'
        refused = kubectl("patch", alpha_kind, "adapted", "--type=merge", "-p", alpha)
        assert refused.returncode != 0
        assert "spec.services.VllmWorker.replicas: cannot be changed" in refused.stderr
        assert "kubectl scale dgdsa adapted-vllmworker" in refused.stderr
        read = kubectl("get", beta_kind, "adapted", "-o", "json")
        names = [c["name"] for c in json.loads(read.stdout)["spec"]["components"]]
        index = names.index("VllmWorker")
        replace = f'[{{"op":"replace","path":"/spec/components/{index}/replicas","value":3}}]'
        refused = kubectl("patch", beta_kind, "adapted", "--type=json", "-p", replace)
        assert f"spec.components[{index}].replicas: cannot be changed" in refused.stderr

        planner = f"--as=system:serviceaccount:{namespace}:planner-serviceaccount"
        # The planner's name, the admin's rights (RBAC is not this test's subject).
        as_admin = "--as-group=system:masters"
        allowed = kubectl(
            planner, as_admin, "patch", alpha_kind, "adapted", "--type=merge", "-p", alpha
        )
        assert allowed.returncode == 0, allowed.stderr
        stored = DynamoGraphDeployment.get("adapted", namespace=namespace, api=kr8s_api)
        assert stored.raw["spec"]["services"]["VllmWorker"]["replicas"] == 3
    finally:
        configuration.delete()


def test_apiserver_admits_valid_and_rejects_invalid_graphs(
    kr8s_api: kr8s.Api, crds: None, namespace: str, standalone_server: tuple[int, bytes]
) -> None:
    port, ca_pem = standalone_server
    configuration = create_configuration(kr8s_api, namespace, port, ca_pem)
    try:
        wait_until_webhook_denies(kr8s_api, namespace)

        refusal = create_rejection(kr8s_api, invalid_graph(namespace))
        assert 'admission webhook "vdynamographdeployment.kb.io" denied the request' in refusal
        assert "spec.services.Frontend.ingress.host: required when ingress is enabled" in refusal

        assert create_rejection(kr8s_api, graph(namespace)) == ""
        stored = DynamoGraphDeployment.get("llm", namespace=namespace, api=kr8s_api)
        assert stored.raw["spec"]["backendFramework"] == "vllm"

        with pytest.raises(kr8s.ServerError, match=r"spec\.backendFramework: is immutable"):
            stored.patch({"spec": {"backendFramework": "sglang"}}, type="merge")
        stored.refresh()
        assert stored.raw["spec"]["backendFramework"] == "vllm"

        stored.patch({"spec": {"services": {"VllmWorker": {"replicas": 3}}}}, type="merge")
        stored.refresh()
        assert stored.raw["spec"]["services"]["VllmWorker"]["replicas"] == 3

        stored.delete()  # DELETE is never sent to, nor blocked by, the webhook
    finally:
        configuration.delete()


def test_operator_managed_certificates_against_the_apiserver(
    kr8s_api: kr8s.Api, crds: None, namespace: str, kubeconfig: Path
) -> None:
    port = free_port()
    # No caBundle: the operator-managed mode must inject it before the apiserver can call us.
    configuration = create_configuration(kr8s_api, namespace, port, ca_pem=None)
    try:
        with anyio.from_thread.start_blocking_portal(backend="asyncio") as portal:
            api = portal.call(functools.partial(kr8s.asyncio.api, kubeconfig=str(kubeconfig)))
            rest = RestClient.for_api(api)
            certificates = OperatorManagedCertificates(
                namespace=namespace,
                policy=CertificatePolicy(dns_names=("localhost",), ip_addresses=LOCAL_IP_ADDRESSES),
                check_interval=timedelta(seconds=1),
                api=api,
            )
            server = WebhookServer(
                certificates=certificates,
                validator=dynamo_operator.validation,
                host="127.0.0.1",
                port=port,
            )
            future, _ = portal.start_task(server.run)
            try:
                secret = Secret.get(SECRET_NAME, namespace=namespace, api=kr8s_api)
                assert set(secret.raw["data"]) >= {"tls.crt", "tls.key", "ca.crt"}
                managers = {entry["manager"] for entry in secret.raw["metadata"]["managedFields"]}
                assert managers == {FIELD_MANAGER}
                managed = ManagedCertificates.from_secret_data(secret.raw["data"])
                assert managed is not None

                configuration.refresh()
                for webhook in configuration.raw["webhooks"]:
                    injected = base64.b64decode(webhook["clientConfig"]["caBundle"])
                    assert injected == managed.ca_bundle_pem

                wait_until_webhook_denies(kr8s_api, namespace)
                refusal = create_rejection(kr8s_api, invalid_graph(namespace))
                assert "ingress.host" in refusal

                # A second pass keeps good certificates: the Secret is not rewritten.
                version = secret.raw["metadata"]["resourceVersion"]
                again = portal.call(certificates.ensure, rest)
                assert again == managed
                secret.refresh()
                assert secret.raw["metadata"]["resourceVersion"] == version
            finally:
                future.cancel()
                portal.call(rest.transport.aclose)
    finally:
        configuration.delete()


async def ensure_concurrently(kubeconfig: Path, namespace: str) -> list[ManagedCertificates]:
    """Two replicas' first passes at once, each with its own connection."""
    policy = CertificatePolicy(dns_names=("localhost",), ip_addresses=LOCAL_IP_ADDRESSES)
    results: list[ManagedCertificates] = []
    apis = [await kr8s.asyncio.api(kubeconfig=str(kubeconfig)) for _ in range(2)]
    rests = [RestClient(AiohttpTransport(api)) for api in apis]
    try:

        async def replica(rest: RestClient) -> None:
            certificates = OperatorManagedCertificates(namespace=namespace, policy=policy)
            results.append(await certificates.ensure(rest))

        async with anyio.create_task_group() as task_group:
            for rest in rests:
                task_group.start_soon(replica, rest)
    finally:
        for rest in rests:
            await rest.transport.aclose()
    return results


def test_replicas_racing_to_create_the_secret_converge_on_the_winner(
    kr8s_api: kr8s.Api, namespace: str, kubeconfig: Path
) -> None:
    first, second = anyio.run(ensure_concurrently, kubeconfig, namespace)

    assert first == second
    stored = Secret.get(SECRET_NAME, namespace=namespace, api=kr8s_api)
    assert ManagedCertificates.from_secret_data(stored.raw["data"]) == first
