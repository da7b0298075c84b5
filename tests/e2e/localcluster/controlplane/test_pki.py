from __future__ import annotations

import base64
import socket
import ssl
import threading
from pathlib import Path

import yaml
from cryptography import x509

from e2e.localcluster.controlplane.pki import create_pki, write_kubeconfig


def test_admin_client_and_apiserver_authenticate_each_other_over_tls(tmp_path: Path) -> None:
    pki = create_pki(tmp_path)
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(str(pki.apiserver.cert), str(pki.apiserver.key))
    server_tls.load_verify_locations(str(pki.ca.cert))
    server_tls.verify_mode = ssl.CERT_REQUIRED
    client_tls = ssl.create_default_context(cafile=str(pki.ca.cert))
    client_tls.load_cert_chain(str(pki.admin.cert), str(pki.admin.key))
    peer_subjects: list[object] = []

    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def serve() -> None:
            connection, _ = listener.accept()
            with server_tls.wrap_socket(connection, server_side=True) as tls:
                peer_subjects.append(tls.getpeercert()["subject"])  # type: ignore[index]
                tls.sendall(b"ok")

        thread = threading.Thread(target=serve)
        thread.start()
        with (
            socket.create_connection(("127.0.0.1", port)) as raw,
            client_tls.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
        ):
            assert tls.recv(2) == b"ok"
        thread.join()

    # The apiserver maps O= to groups: system:masters is the built-in superuser group.
    assert (peer_subjects[0]) == (
        (("organizationName", "system:masters"),),
        (("commonName", "local-admin"),),
    )


def test_a_serving_certificate_for_a_webhook_is_trusted_through_the_ca(tmp_path: Path) -> None:
    pki = create_pki(tmp_path / "pki")
    serving = pki.issue_serving_cert(tmp_path, "webhook")
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(str(serving.cert), str(serving.key))
    client_tls = ssl.create_default_context(cafile=str(pki.ca.cert))
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        thread = threading.Thread(
            target=lambda: server_tls.wrap_socket(listener.accept()[0], server_side=True).close()
        )
        thread.start()
        with (
            socket.create_connection(("127.0.0.1", port)) as raw,
            client_tls.wrap_socket(raw, server_hostname="localhost"),
        ):
            pass
        thread.join()


def test_the_kubeconfig_embeds_the_ca_and_admin_credentials(tmp_path: Path) -> None:
    pki = create_pki(tmp_path)
    path = write_kubeconfig(tmp_path / "kubeconfig", server="https://127.0.0.1:6443", pki=pki)

    config = yaml.safe_load(path.read_text())

    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    assert cluster["server"] == "https://127.0.0.1:6443"
    assert base64.b64decode(cluster["certificate-authority-data"]) == pki.ca.cert.read_bytes()
    assert base64.b64decode(user["client-certificate-data"]) == pki.admin.cert.read_bytes()
    assert base64.b64decode(user["client-key-data"]) == pki.admin.key.read_bytes()
    assert config["current-context"] == config["contexts"][0]["name"]
    assert path.stat().st_mode & 0o077 == 0


def _sans(cert_path: Path) -> list[str]:
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return [str(getattr(name, "value", name)) for name in names]


def test_in_cluster_clients_can_verify_the_apiserver_at_the_service_ip(tmp_path: Path) -> None:
    default = create_pki(tmp_path / "default")
    assert _sans(default.apiserver.cert) == ["localhost", "127.0.0.1"]
    in_cluster = create_pki(
        tmp_path / "in-cluster",
        apiserver_names=("kubernetes.default.svc",),
        apiserver_ips=("10.96.0.1", "192.0.2.2"),
    )
    assert _sans(in_cluster.apiserver.cert) == [
        "localhost",
        "kubernetes.default.svc",
        "127.0.0.1",
        "10.96.0.1",
        "192.0.2.2",
    ]


def test_a_kubelet_client_certificate_names_the_node_and_its_group(tmp_path: Path) -> None:
    pki = create_pki(tmp_path / "pki")
    pair = pki.issue_client_cert(
        tmp_path, "kubelet", common_name="system:node:real-node", organization="system:nodes"
    )
    subject = x509.load_pem_x509_certificate(pair.cert.read_bytes()).subject
    assert subject.rfc4514_string() == "CN=system:node:real-node,O=system:nodes"
