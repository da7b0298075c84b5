"""cert-manager mode with real cert-manager: its controller issues the webhook's certificate, its
cainjector fills the webhook configuration's caBundle, and `dynamo-operator run
--webhook-cert-path` serves the issued certificate, then the renewed one, without a restart.

The test plays the kubelet: it copies the Secret cert-manager writes into a directory laid out
like a Secret volume, as the operator's Pod would see it mounted. The apiserver reaches the
operator through a URL on 127.0.0.1 (hence the certificate's extra IP address, and the
``local_control_plane`` marker).
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kr8s
import pytest
from cryptography import x509
from kr8s.objects import Secret, new_class

from e2e.localcluster import wait_for
from e2e.localcluster.ports import free_port
from e2e.support.admission_reviews import admission_review
from e2e.support.cert_manager import (
    ISSUANCE_TIMEOUT,
    SERVING_SECRET,
    Certificate,
    CertManager,
    Issuer,
    bundle_trusts,
    chart_certificate_objects,
    describe_objects,
    inject_ca_from,
    is_ready,
    request_renewal,
    running_cert_manager,
    secret_files,
    service_dns_names,
    settled_serving_secret,
    sync_secret_volume,
    wait_for_revision,
)
from e2e.support.conversion import ConversionServer
from e2e.support.crds import CustomResourceDefinition
from e2e.support.operator_process import OperatorProcess, running_operator
from e2e.support.webhooks import create_rejection, graph, invalid_graph, wait_until_webhook_denies
from webhooks import convertible_crd_names
from webhooks.certificates.operator_managed import FIELD_MANAGER
from webhooks.manifests import UrlTarget, build_validating_webhook_configuration

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

RELEASE = "dynamo-operator"
"""Helm's fullname is then the release name: Issuers, Certificates and the webhook Service are
`dynamo-operator-...`."""
DGD_PATH = "/validate-nvidia-com-v1alpha1-dynamographdeployment"
ValidatingWebhookConfiguration = new_class(
    "ValidatingWebhookConfiguration", "admissionregistration.k8s.io/v1", namespaced=False
)


@pytest.fixture(scope="module")
def cert_manager(
    kubeconfig: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CertManager]:
    with running_cert_manager(kubeconfig, tmp_path_factory.mktemp("cert-manager")) as running:
        yield running


def served_certificate(port: int, ca_pem: bytes) -> x509.Certificate:
    """The certificate a new TLS connection is shown, verified against ``ca_pem``."""
    context = ssl.create_default_context(cadata=ca_pem.decode())
    with (
        socket.create_connection(("127.0.0.1", port), timeout=10) as raw,
        context.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der)


def review(namespace: str, obj: dict[str, Any]) -> bytes:
    name = obj["metadata"]["name"]
    return json.dumps(admission_review(obj, name=name, namespace=namespace, user="e2e")).encode()


class KeptOpenConnection:
    """One keep-alive HTTPS connection to the webhook; ``ask`` fails if it had to reconnect."""

    def __init__(self, port: int, ca_pem: bytes) -> None:
        context = ssl.create_default_context(cadata=ca_pem.decode())
        self.connection = http.client.HTTPSConnection("127.0.0.1", port, context=context)
        self.connection.connect()
        self.socket = self.connection.sock

    @property
    def certificate(self) -> x509.Certificate:
        der = self.socket.getpeercert(binary_form=True)
        return x509.load_der_x509_certificate(der)

    def ask(self, body: bytes) -> dict[str, Any]:
        self.connection.request(
            "POST", DGD_PATH, body=body, headers={"Content-Type": "application/json"}
        )
        response = self.connection.getresponse()
        answer = json.loads(response.read())
        assert response.status == 200, answer
        assert self.connection.sock is self.socket, "the connection was closed and reopened"
        return dict(answer["response"])

    def close(self) -> None:
        self.connection.close()


def managers(obj: Any) -> set[str]:
    obj.refresh()
    return {entry["manager"] for entry in obj.raw["metadata"].get("managedFields") or []}


def test_cert_manager_issues_injects_and_renews_what_the_operator_serves(
    kr8s_api: kr8s.Api,
    kubeconfig: Path,
    installed_crds: list[Any],
    namespace: str,
    cert_manager: CertManager,
    tmp_path: Path,
) -> None:
    port = free_port()
    with installed_as_the_chart_does(kr8s_api, namespace, port, cert_manager) as (
        secret,
        configuration,
    ):
        files = secret_files(secret)
        assert secret.raw["type"] == "kubernetes.io/tls"
        assert set(files) == {"tls.crt", "tls.key", "ca.crt"}
        ca_pem = files["ca.crt"]
        issued = x509.load_pem_x509_certificate(files["tls.crt"])
        issued.verify_directly_issued_by(x509.load_pem_x509_certificate(ca_pem))
        names = issued.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert set(names.get_values_for_type(x509.DNSName)) == set(
            service_dns_names(f"{RELEASE}-webhook-service", namespace)
        )
        assert every_bundle_trusts(configuration, ca_pem)  # filled by the cainjector

        volume = tmp_path / "serving-certs"
        sync_secret_volume(volume, files)
        with running_operator(
            kubeconfig,
            tmp_path,
            "--enable-webhooks",
            "--manage-crd-conversion=false",  # the session's conversion webhook stays
            f"--webhook-port={port}",
            f"--webhook-cert-path={volume}",
            name="cert-manager-mode",
            env={"POD_NAMESPACE": namespace},
        ) as operator:
            assert served_certificate(port, ca_pem).serial_number == issued.serial_number
            admission_works(kr8s_api, namespace)
            renewed = renew_and_serve(kr8s_api, namespace, operator, port, ca_pem, issued, volume)
            assert renewed.serial_number != issued.serial_number
            assert operator.process.poll() is None  # never restarted

        # Certificates were cert-manager's business: the operator wrote no Secret and injected
        # nothing (the CA stayed the one the cainjector put there; a leaf renewal keeps it).
        assert FIELD_MANAGER not in managers(secret)
        assert FIELD_MANAGER not in managers(configuration)
        assert every_bundle_trusts(configuration, ca_pem)


def test_in_cert_manager_mode_the_cainjector_gives_the_crds_conversion_webhook_its_ca(
    kr8s_api: kr8s.Api,
    kubeconfig: Path,
    conversion_server: ConversionServer | None,
    namespace: str,
    cert_manager: CertManager,
    tmp_path: Path,
) -> None:
    """The operator as the chart runs it in cert-manager mode (`--conversion-ca-certificate`):
    it points the two-version CRDs at its Service and annotates them for the cainjector, which
    fills their caBundle with the serving Certificate's CA. The session's conversion webhook is
    stopped meanwhile (one writer per cluster) and given its CRDs back afterwards."""
    assert conversion_server is not None, "needs the local control plane's conversion webhook"
    port = free_port()
    certificate = f"{namespace}/{RELEASE}-serving-cert"
    with installed_as_the_chart_does(kr8s_api, namespace, port, cert_manager) as (secret, _):
        ca_pem = secret_files(secret)["ca.crt"]
        volume = tmp_path / "serving-certs"
        sync_secret_volume(volume, secret_files(secret))
        conversion_server.stop()
        try:
            with running_operator(
                kubeconfig,
                tmp_path,
                "--enable-webhooks",
                f"--webhook-port={port}",
                f"--webhook-cert-path={volume}",
                f"--conversion-ca-certificate={certificate}",
                name="cert-manager-conversion",
                env={"POD_NAMESPACE": namespace},
            ):
                service = {
                    "name": "dynamo-operator-webhook-service",
                    "namespace": namespace,
                    "path": "/convert",
                    "port": 443,
                }

                def configured(name: str) -> tuple[Any, Any, bool]:
                    crd = CustomResourceDefinition.get(name, api=kr8s_api)
                    annotations = crd.raw["metadata"].get("annotations") or {}
                    config = crd.raw["spec"]["conversion"]["webhook"]["clientConfig"]
                    return (
                        annotations.get("cert-manager.io/inject-ca-from"),
                        config.get("service"),
                        bundle_trusts(base64.b64decode(config.get("caBundle", "")), ca_pem),
                    )

                expected = (certificate, service, True)
                for name in convertible_crd_names():
                    last: list[tuple[Any, Any, bool]] = []

                    def done(name: str = name, last: list[Any] = last) -> bool:
                        last[:] = [configured(name)]
                        return last[0] == expected

                    with contextlib.suppress(TimeoutError):
                        wait_for(f"{name} configured", done, timeout=ISSUANCE_TIMEOUT)
                    assert last == [expected], f"{name}\n{cert_manager.describe()}"
        finally:
            for name in convertible_crd_names():
                CustomResourceDefinition.get(name, api=kr8s_api).patch(
                    {"metadata": {"annotations": {"cert-manager.io/inject-ca-from": None}}}
                )
            conversion_server.start(kr8s_api)


@contextlib.contextmanager
def installed_as_the_chart_does(
    kr8s_api: kr8s.Api, namespace: str, port: int, cert_manager: CertManager
) -> Iterator[tuple[Any, Any]]:
    """Create what the chart renders with webhook.certManager.enabled, at once as helm does: the
    ValidatingWebhookConfiguration (URL-based here, for the host process on ``port``; labelled
    with the operator's namespace as always) annotated for the cainjector and without caBundle,
    and the Issuers and Certificates. Yields the issued Secret and the configuration once
    cert-manager has issued the certificate and the cainjector filled every caBundle with its CA;
    deletes the configuration afterwards (the namespace takes the rest)."""
    document = build_validating_webhook_configuration(
        UrlTarget(f"https://127.0.0.1:{port}"),
        name=f"dynamo-cert-manager-{namespace}",
        operator_namespace=namespace,
        namespace_selector={"matchLabels": {"kubernetes.io/metadata.name": namespace}},
    )
    document["metadata"]["annotations"] = inject_ca_from(RELEASE, namespace)
    configuration = ValidatingWebhookConfiguration(document, api=kr8s_api)
    configuration.create()
    try:
        kinds = {"Issuer": Issuer, "Certificate": Certificate}
        for manifest in chart_certificate_objects(RELEASE, namespace, ip_addresses=("127.0.0.1",)):
            kinds[manifest["kind"]](manifest, api=kr8s_api).create()
        serving = Certificate.get(f"{RELEASE}-serving-cert", namespace=namespace, api=kr8s_api)
        wait_for(
            lambda: (
                "cert-manager to issue the serving certificate\n"
                f"{describe_objects(kr8s_api, namespace)}\n{cert_manager.describe()}"
            ),
            lambda: is_ready(serving),
            timeout=ISSUANCE_TIMEOUT,
        )
        secret = settled_serving_secret(kr8s_api, RELEASE, namespace)
        ca_pem = secret_files(secret)["ca.crt"]
        wait_for(
            lambda: f"the cainjector to fill caBundle\n{cert_manager.describe()}",
            lambda: every_bundle_trusts(configuration, ca_pem),
            timeout=ISSUANCE_TIMEOUT,
        )
        yield secret, configuration
    finally:
        configuration.delete()


def every_bundle_trusts(configuration: Any, ca_pem: bytes) -> bool:
    configuration.refresh()
    return all(
        bundle_trusts(base64.b64decode(webhook["clientConfig"].get("caBundle", "")), ca_pem)
        for webhook in configuration.raw["webhooks"]
    )


def admission_works(kr8s_api: kr8s.Api, namespace: str, name: str = "llm") -> None:
    wait_until_webhook_denies(kr8s_api, namespace)
    refusal = create_rejection(kr8s_api, invalid_graph(namespace))
    assert 'admission webhook "vdynamographdeployment.kb.io" denied the request' in refusal
    assert "spec.services.Frontend.ingress.host: required when ingress is enabled" in refusal
    assert create_rejection(kr8s_api, graph(namespace, name=name)) == ""


def renew_and_serve(
    kr8s_api: kr8s.Api,
    namespace: str,
    operator: OperatorProcess,
    port: int,
    ca_pem: bytes,
    issued: x509.Certificate,
    volume: Path,
) -> x509.Certificate:
    """Renew through cert-manager, sync the volume, and watch the new certificate reach new
    connections while a connection opened before keeps being answered."""
    kept_open = KeptOpenConnection(port, ca_pem)
    try:
        assert kept_open.certificate.serial_number == issued.serial_number
        assert kept_open.ask(review(namespace, graph(namespace, name="before")))["allowed"]

        serving = Certificate.get(f"{RELEASE}-serving-cert", namespace=namespace, api=kr8s_api)
        revision = serving.raw["status"]["revision"]
        request_renewal(serving)
        secret = Secret.get(SERVING_SECRET, namespace=namespace, api=kr8s_api)

        def reissued() -> dict[str, bytes] | None:
            secret.refresh()
            files = secret_files(secret)
            current = x509.load_pem_x509_certificate(files["tls.crt"])
            return files if current.serial_number != issued.serial_number else None

        files = wait_for(
            "cert-manager to reissue the serving certificate", reissued, timeout=ISSUANCE_TIMEOUT
        )
        wait_for_revision(serving, revision + 1)
        renewed = x509.load_pem_x509_certificate(files["tls.crt"])
        assert files["ca.crt"] == ca_pem  # same CA: the injected caBundle stays valid

        sync_secret_volume(volume, files)
        wait_for(
            lambda: f"the operator to serve the renewed certificate\n{operator.tail()}",
            lambda: served_certificate(port, ca_pem).serial_number == renewed.serial_number,
            timeout=ISSUANCE_TIMEOUT,
        )
        # The connection opened before the renewal is still answered, on its original certificate.
        assert kept_open.ask(review(namespace, graph(namespace, name="after")))["allowed"]
        assert kept_open.certificate.serial_number == issued.serial_number
    finally:
        kept_open.close()
    admission_works(kr8s_api, namespace, name="llm-renewed")
    return renewed


def test_operator_managed_mode_beside_cert_manager_takes_nothing_over(
    kr8s_api: kr8s.Api,
    kubeconfig: Path,
    installed_crds: list[Any],
    namespace: str,
    cert_manager: CertManager,
    tmp_path: Path,
) -> None:
    """The chart's cert-manager objects, but the operator started without --webhook-cert-path:
    it must neither replace cert-manager's Secret nor inject its own CA (each would fight
    cert-manager forever); it stays unready and says why."""
    port = free_port()
    with installed_as_the_chart_does(kr8s_api, namespace, port, cert_manager) as (
        secret,
        configuration,
    ):
        ca_pem = secret_files(secret)["ca.crt"]
        version = secret.raw["metadata"]["resourceVersion"]
        with running_operator(
            kubeconfig,
            tmp_path,
            "--enable-webhooks",
            "--manage-crd-conversion=false",  # the session's conversion webhook stays
            f"--webhook-port={port}",
            name="operator-managed-beside-cert-manager",
            env={"POD_NAMESPACE": namespace},
            wait_ready=False,
        ) as operator:
            refusal = wait_for(
                "the operator to refuse cert-manager's Secret",
                lambda: next(
                    (
                        record["error"]
                        for record in operator.logs()
                        if "issued by cert-manager" in str(record.get("error"))
                    ),
                    None,
                ),
                timeout=ISSUANCE_TIMEOUT,
            )
            assert f"Certificate {RELEASE}-serving-cert" in refusal
            status, body = operator.readyz()
            assert status != 200
            assert "[-]webhook-server" in body
            assert operator.process.poll() is None
        secret.refresh()
        assert secret.raw["metadata"]["resourceVersion"] == version
        assert FIELD_MANAGER not in managers(secret)
        assert FIELD_MANAGER not in managers(configuration)
        assert every_bundle_trusts(configuration, ca_pem)
