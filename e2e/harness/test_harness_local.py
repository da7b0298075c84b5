"""Smoke tests only the local control plane can run: a webhook served on 127.0.0.1, an apiserver
restart under a watch, and etcd compaction. The manager's and webhooks' tests rely on all three.
"""

from __future__ import annotations

import base64
import contextlib
import json
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import kr8s
import pytest
from kr8s.objects import APIObject, ConfigMap, new_class

from e2e.localcluster import ControlPlane, wait_for
from e2e.localcluster.controlplane.pki import create_pki

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

ValidatingWebhookConfiguration = new_class(
    "ValidatingWebhookConfiguration",
    version="admissionregistration.k8s.io/v1",
    namespaced=False,
    asyncio=False,
)


@pytest.fixture
def admin_http(control_plane: ControlPlane) -> Iterator[httpx.Client]:
    """Raw HTTP to the apiserver with the admin certificate, for watches and error statuses."""
    assert control_plane.local is not None
    pki = control_plane.local.pki
    tls = ssl.create_default_context(cafile=str(pki.ca.cert))
    tls.load_cert_chain(str(pki.admin.cert), str(pki.admin.key))
    with httpx.Client(base_url=control_plane.server, verify=tls, timeout=30) as client:
        yield client


def _config_map(namespace: str, name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels or {}}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"k": "v"}}


class _DenyLabelledHandler(BaseHTTPRequestHandler):
    """Admission webhook: denies objects labelled deny=yes, records every call."""

    calls: list[str]

    def do_POST(self) -> None:
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        request = review["request"]
        self.calls.append(request["name"])
        denied = request["object"]["metadata"].get("labels", {}).get("deny") == "yes"
        response: dict[str, Any] = {"uid": request["uid"], "allowed": not denied}
        if denied:
            response["status"] = {"code": 403, "message": "denied by the harness test webhook"}
        body = json.dumps({**review, "request": None, "response": response}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def webhook_server(tmp_path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """An HTTPS admission server on 127.0.0.1: (port, CA bundle, names it was called for)."""
    pki = create_pki(tmp_path / "pki")
    serving = pki.issue_serving_cert(tmp_path, "webhook")
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(str(serving.cert), str(serving.key))
    calls: list[str] = []
    handler = type("Handler", (_DenyLabelledHandler,), {"calls": calls})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        ca_bundle = base64.b64encode(pki.ca.cert.read_bytes()).decode()
        yield server.server_address[1], ca_bundle, calls
    finally:
        server.shutdown()
        server.server_close()


def test_a_webhook_on_loopback_is_called_and_can_deny_a_create(
    kr8s_api: kr8s.Api, namespace: str, webhook_server: tuple[int, str, list[str]]
) -> None:
    port, ca_bundle, calls = webhook_server
    configuration = ValidatingWebhookConfiguration(
        {
            "metadata": {"name": f"harness-{namespace}"},
            "webhooks": [
                {
                    "name": "deny-labelled.harness.test",
                    "clientConfig": {
                        "url": f"https://127.0.0.1:{port}/validate",
                        "caBundle": ca_bundle,
                    },
                    "rules": [
                        {
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "operations": ["CREATE"],
                            "resources": ["configmaps"],
                        }
                    ],
                    "namespaceSelector": {
                        "matchLabels": {"kubernetes.io/metadata.name": namespace}
                    },
                    "failurePolicy": "Fail",
                    "sideEffects": "None",
                    "admissionReviewVersions": ["v1"],
                }
            ],
        },
        api=kr8s_api,
    )
    configuration.create()
    try:
        ConfigMap(_config_map(namespace, "allowed"), api=kr8s_api).create()
        # The apiserver loads new webhook configurations asynchronously: probe until it calls us.
        denial = wait_for(
            "the webhook to deny a create", lambda: _try_denied_create(kr8s_api, namespace)
        )
    finally:
        configuration.delete()
    assert "denied by the harness test webhook" in denial
    assert "denied" in calls
    remaining = [
        cm.name if isinstance(cm, APIObject) else cm["metadata"]["name"]
        for cm in kr8s_api.get("configmaps", namespace=namespace)
    ]
    # The controller-manager publishes kube-root-ca.crt in every namespace, when it gets to it.
    assert sorted(set(remaining) - {"kube-root-ca.crt"}) == ["allowed"]


def _try_denied_create(api: kr8s.Api, namespace: str) -> str | None:
    """The denial message, or None (and the object removed again) if the create got through."""
    config_map = ConfigMap(_config_map(namespace, "denied", {"deny": "yes"}), api=api)
    try:
        config_map.create()
    except kr8s.ServerError as error:
        return str(error)
    config_map.delete()
    wait_for("the let-through object gone", lambda: not config_map.exists())
    return None


def _watch_params(resource_version: str, selector: str = "") -> dict[str, str]:
    params = {"watch": "1", "resourceVersion": resource_version, "timeoutSeconds": "60"}
    return {**params, "labelSelector": selector} if selector else params


def _first_event(
    client: httpx.Client, path: str, resource_version: str, selector: str = ""
) -> dict[str, Any]:
    """The first watch event from ``resource_version``; an HTTP 410 is returned as an ERROR."""
    params = _watch_params(resource_version, selector)
    with client.stream("GET", path, params=params) as stream:
        if stream.status_code == 410:
            return {"type": "ERROR", "object": {"code": 410}}
        assert stream.status_code == 200, stream.status_code
        event: dict[str, Any] = json.loads(next(stream.iter_lines()))
        return event


def _is_gone(event: dict[str, Any]) -> bool:
    return bool(event["type"] == "ERROR" and event["object"].get("code") == 410)


def _names(listing: dict[str, Any]) -> set[str]:
    return {item["metadata"]["name"] for item in listing["items"]}


def test_a_watcher_misses_nothing_across_an_apiserver_restart(
    control_plane: ControlPlane, admin_http: httpx.Client, kr8s_api: kr8s.Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    # Only this test's objects: the controller-manager publishes kube-root-ca.crt into a new
    # namespace at a moment of its own, which could come first on the watch.
    selector, labels = "watched=yes", {"watched": "yes"}
    start = admin_http.get(path).json()["metadata"]["resourceVersion"]
    ConfigMap(_config_map(namespace, "before-restart", labels), api=kr8s_api).create()

    with admin_http.stream("GET", path, params=_watch_params(start, selector)) as stream:
        events = stream.iter_lines()
        first = json.loads(next(events))
        assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "before-restart")
        seen = first["object"]["metadata"]["resourceVersion"]
        control_plane.restart_apiserver()
        # The stream ends (or breaks) with the apiserver; nothing new can arrive on it.
        with contextlib.suppress(httpx.HTTPError):
            assert [json.loads(line)["type"] for line in events if line] == []
    ConfigMap(_config_map(namespace, "after-restart", labels), api=kr8s_api).create()

    # What an informer does: resume from the last resourceVersion; the restarted apiserver's watch
    # cache starts at a newer revision, so that is usually 410 Gone, and then a relist catches up.
    resumed = _first_event(admin_http, path, seen, selector)
    if _is_gone(resumed):
        relisted = admin_http.get(path, params={"labelSelector": selector}).json()
        assert {"before-restart", "after-restart"} <= _names(relisted)
        ConfigMap(_config_map(namespace, "after-relist", labels), api=kr8s_api).create()
        resumed = _first_event(admin_http, path, relisted["metadata"]["resourceVersion"], selector)
        assert (resumed["type"], resumed["object"]["metadata"]["name"]) == ("ADDED", "after-relist")
    else:
        expected = ("ADDED", "after-restart")
        assert (resumed["type"], resumed["object"]["metadata"]["name"]) == expected


def test_compacting_etcd_makes_an_older_resource_version_gone(
    control_plane: ControlPlane, admin_http: httpx.Client, kr8s_api: kr8s.Api, namespace: str
) -> None:
    config_map = ConfigMap(_config_map(namespace, "churn"), api=kr8s_api)
    config_map.create()
    old = config_map.metadata["resourceVersion"]
    for value in ("1", "2", "3"):
        config_map.patch({"data": {"k": value}})
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    exact_old = {"resourceVersion": old, "resourceVersionMatch": "Exact"}
    assert admin_http.get(path, params=exact_old).status_code == 200

    compacted_to = control_plane.compact_etcd()

    assert compacted_to > int(old)
    assert admin_http.get(path, params=exact_old).status_code == 410
    assert _is_gone(_first_event(admin_http, path, old))
    # The present is unaffected.
    assert _names(admin_http.get(path).json()) >= {"churn"}


def test_a_crashed_scheduler_is_started_again_and_schedules(
    control_plane: ControlPlane, kr8s_api: kr8s.Api, namespace: str
) -> None:
    """What the chaos runs need when API server restarts make kube-scheduler exit (it does, on
    a cache it finds corrupted): the kubelet's restart, for the local control plane."""
    assert control_plane.local is not None
    scheduler = control_plane.local.processes["kube-scheduler"]
    scheduler.stop()
    assert not scheduler.alive()

    assert control_plane.restart_crashed() == ["kube-scheduler"]
    assert control_plane.restart_crashed() == [], "a running controller is left alone"

    pod = kr8s.objects.Pod(
        {
            "metadata": {"name": "after-the-crash", "namespace": namespace},
            "spec": {"containers": [{"name": "main", "image": "example.invalid/none"}]},
        },
        api=kr8s_api,
    )
    pod.create()

    def scheduled() -> bool:
        pod.refresh()
        return bool(pod.spec.get("nodeName"))

    wait_for("the restarted scheduler to bind a new pod", scheduled, timeout=60)
