"""Operator-managed certificates over the REST client: races, CA injection, retries.

The API server here is a small in-memory fake behind the `Transport` seam, so the races two
replicas run (both create, both replace) happen on cue; `e2e/test_webhooks.py` runs the same code
against a real API server.
"""

from __future__ import annotations

import base64
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import orjson
import pytest

from manager.runtime.backoff import Backoff
from manager.runtime.client.errors import Conflict, Invalid, TransportError
from manager.runtime.client.rest import RestClient
from manager.runtime.client.transport import HttpResponse, StreamResponse
from manager.runtime.clock import RealClock
from manager.runtime.tls.server_context import ReloadableServerTLS
from webhooks.certificates.operator_managed import (
    CERT_MANAGER_CERTIFICATE_ANNOTATION,
    FIELD_MANAGER,
    SECRET_NAME,
    WRITE_ATTEMPTS,
    OperatorManagedCertificates,
    _ca_bundle_patch,
)
from webhooks.certificates.rotation import CertificatePolicy, ManagedCertificates, plan_certificates
from webhooks.errors import SecretOwnedElsewhereError
from webhooks.manifests import (
    OPERATOR_NAMESPACE_LABEL,
    VALIDATING_WEBHOOK_CONFIGURATION,
    UrlTarget,
    build_validating_webhook_configuration,
)

pytestmark = pytest.mark.anyio

NAMESPACE = "dynamo-system"
SECRET_PATH = f"/api/v1/namespaces/{NAMESPACE}/secrets"
CONFIGURATIONS_PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
POLICY = CertificatePolicy(dns_names=("localhost",), ip_addresses=("127.0.0.1",))


@dataclass
class Call:
    method: str
    path: str
    params: Mapping[str, str]
    content_type: str | None


@dataclass
class FakeApiServer:
    """Secrets of one namespace and cluster-scoped webhook configurations, with resourceVersions.

    `before` runs before a request is handled (another replica acting between our read and our
    write); `failures` are answered first, in order, instead (None: no answer at all).
    """

    secrets: dict[str, dict[str, Any]] = field(default_factory=dict)
    configurations: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    before: Callable[[Call], None] = lambda call: None
    failures: list[HttpResponse | None] = field(default_factory=list)
    version: int = 0
    server: str = "https://fake:6443"
    watches: list[tuple[str, Any]] = field(default_factory=list)

    def store(self, objects: dict[str, dict[str, Any]], obj: dict[str, Any]) -> dict[str, Any]:
        self.version += 1
        obj = {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(self.version)}}
        objects[obj["metadata"]["name"]] = obj
        return obj

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
        request_timeout: float = 30.0,
    ) -> HttpResponse:
        call = Call(method, path, params or {}, content_type)
        self.calls.append(call)
        if self.failures:
            failure = self.failures.pop(0)
            if failure is None:
                raise TransportError("connection refused")
            return failure
        self.before(call)
        decoded = orjson.loads(body) if body else None
        if path.startswith(SECRET_PATH):
            return self.secret_request(method, path.removeprefix(SECRET_PATH), decoded)
        return self.configuration_request(
            method, path.removeprefix(CONFIGURATIONS_PATH), call, decoded
        )

    def secret_request(self, method: str, rest: str, body: Any) -> HttpResponse:
        name = rest.strip("/")
        current = self.secrets.get(name or body["metadata"]["name"])
        if method == "GET":
            return answer(200, current) if current else status(404, "NotFound")
        if method == "POST":
            return (
                status(409, "AlreadyExists")
                if current
                else answer(201, self.store(self.secrets, body))
            )
        assert method == "PUT"
        if current is None:
            return status(404, "NotFound")
        if body["metadata"].get("resourceVersion") != current["metadata"]["resourceVersion"]:
            return status(409, "Conflict")
        return answer(200, self.store(self.secrets, body))

    def configuration_request(self, method: str, rest: str, call: Call, body: Any) -> HttpResponse:
        if method == "GET":
            key, _, value = call.params["labelSelector"].partition("=")
            items = [
                c for c in self.configurations.values() if c["metadata"]["labels"].get(key) == value
            ]
            return answer(200, {"metadata": {"resourceVersion": str(self.version)}, "items": items})
        assert method == "PATCH"
        assert call.content_type == "application/json-patch+json"
        configuration = self.configurations[rest.strip("/")]
        for operation in body:
            *parents, leaf = operation["path"].strip("/").split("/")
            target: Any = configuration
            for part in parents:
                target = target[int(part)] if isinstance(target, list) else target[part]
            if operation["op"] == "test" and target[leaf] != operation["value"]:
                return status(422, "Invalid")
            if operation["op"] == "add":
                target[leaf] = operation["value"]
        return answer(200, self.store(self.configurations, configuration))

    def add_configuration(self, configuration: dict[str, Any]) -> None:
        """A configuration created now (as helm does): open watches of its label see it."""
        added = self.store(self.configurations, configuration)
        event = orjson.dumps({"type": "ADDED", "object": added}) + b"\n"
        for selector, send in self.watches:
            key, _, value = selector.partition("=")
            if added["metadata"]["labels"].get(key) == value:
                send.send_nowait(event)

    @contextlib.asynccontextmanager
    async def stream(
        self, path: str, *, params: Mapping[str, str], connect_timeout: float = 10.0
    ) -> AsyncIterator[StreamResponse]:
        assert path == CONFIGURATIONS_PATH, path
        assert params["watch"] == "true"
        send, receive = anyio.create_memory_object_stream[bytes](16)
        watch = (params["labelSelector"], send)
        self.watches.append(watch)

        async def chunks() -> AsyncIterator[bytes]:
            async for chunk in receive:
                yield chunk

        try:
            yield StreamResponse(200, {}, chunks())
        finally:
            self.watches.remove(watch)
        yield

    async def aclose(self) -> None:
        pass

    def writes(self) -> list[Call]:
        return [call for call in self.calls if call.method != "GET"]


def answer(code: int, body: Any) -> HttpResponse:
    return HttpResponse(code, orjson.dumps(body), {})


def status(code: int, reason: str) -> HttpResponse:
    return answer(code, {"kind": "Status", "code": code, "reason": reason, "message": reason})


def secret(data: Mapping[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": SECRET_NAME, "namespace": NAMESPACE},
        "type": "kubernetes.io/tls",
        "data": dict(data),
    }


def configuration(name: str, namespace: str, ca_pem: bytes | None = None) -> dict[str, Any]:
    document = build_validating_webhook_configuration(
        UrlTarget("https://127.0.0.1:9443"),
        name=name,
        operator_namespace=namespace,
        ca_bundle_pem=ca_pem,
    )
    return {**document, "metadata": {**document["metadata"], "resourceVersion": "1"}}


def generated() -> ManagedCertificates:
    return plan_certificates(None, POLICY, datetime.now(UTC))


def certificates(**options: Any) -> OperatorManagedCertificates:
    return OperatorManagedCertificates(namespace=NAMESPACE, policy=POLICY, **options)


def stored(api: FakeApiServer) -> ManagedCertificates | None:
    return ManagedCertificates.from_secret_data(api.secrets[SECRET_NAME]["data"])


def bundles(api: FakeApiServer, name: str) -> list[bytes]:
    webhooks = api.configurations[name]["webhooks"]
    return [base64.b64decode(w["clientConfig"].get("caBundle", "")) for w in webhooks]


async def test_a_missing_secret_is_created_and_its_ca_injected_where_labelled() -> None:
    api = FakeApiServer()
    api.store(api.configurations, configuration("ours", NAMESPACE))
    api.store(api.configurations, configuration("theirs", "elsewhere"))

    current = await certificates().ensure(RestClient(api))

    assert stored(api) == current
    assert set(bundles(api, "ours")) == {current.ca_bundle_pem}
    assert set(bundles(api, "theirs")) == {b""}
    assert [(call.method, call.params.get("fieldManager")) for call in api.writes()] == [
        ("POST", FIELD_MANAGER),
        ("PATCH", FIELD_MANAGER),
    ]
    listed = next(call for call in api.calls if call.path == CONFIGURATIONS_PATH)
    assert listed.params["labelSelector"] == f"{OPERATOR_NAMESPACE_LABEL}={NAMESPACE}"


async def test_ca_listeners_hear_the_first_ca_and_each_change_only() -> None:
    api = FakeApiServer()
    source = certificates()
    heard: list[bytes | None] = []
    source.add_ca_listener(lambda: heard.append(source.ca_bundle_pem))
    assert source.ca_bundle_pem is None

    first = await source.ensure(RestClient(api))
    await source.ensure(RestClient(api))
    assert heard == [first.ca_bundle_pem], "a pass that keeps the CA is not a change"

    api.secrets.clear()  # a new CA (the Secret deleted): the conversion webhook's CRDs need it
    second = await source.ensure(RestClient(api))
    assert second.ca_bundle_pem != first.ca_bundle_pem
    assert heard == [first.ca_bundle_pem, second.ca_bundle_pem]


async def test_good_certificates_and_bundles_are_left_alone() -> None:
    existing = generated()
    api = FakeApiServer()
    api.store(api.secrets, secret(existing.to_secret_data()))
    api.store(api.configurations, configuration("ours", NAMESPACE, existing.ca_bundle_pem))

    assert await certificates().ensure(RestClient(api)) == existing
    assert api.writes() == []


async def test_losing_the_create_race_serves_what_the_winner_wrote() -> None:
    winner = generated()
    api = FakeApiServer()

    def other_replica_creates_first(call: Call) -> None:
        if call.method == "POST":
            api.store(api.secrets, secret(winner.to_secret_data()))

    api.before = other_replica_creates_first

    assert await certificates().ensure(RestClient(api)) == winner
    assert stored(api) == winner
    assert [call.method for call in api.writes()] == ["POST"]


async def test_losing_the_replace_race_serves_what_the_winner_wrote() -> None:
    winner = generated()
    api = FakeApiServer()
    api.store(api.secrets, secret({}))  # created empty, e.g. by a Helm chart

    def other_replica_replaces_first(call: Call) -> None:
        if call.method == "PUT" and stored(api) is None:
            api.store(api.secrets, secret(winner.to_secret_data()))

    api.before = other_replica_replaces_first

    assert await certificates().ensure(RestClient(api)) == winner
    assert [call.method for call in api.writes()] == ["PUT"]
    assert api.secrets[SECRET_NAME]["type"] == "kubernetes.io/tls"


async def test_a_secret_that_keeps_changing_gives_up_with_the_conflict() -> None:
    api = FakeApiServer()
    api.store(api.secrets, secret({}))

    def someone_else_always_writes_first(call: Call) -> None:
        if call.method == "PUT":
            api.store(api.secrets, secret({}))

    api.before = someone_else_always_writes_first

    with pytest.raises(Conflict):
        await certificates().ensure(RestClient(api))
    assert len(api.writes()) == WRITE_ATTEMPTS


async def test_a_reordered_configuration_fails_the_guarded_patch() -> None:
    api = FakeApiServer()
    ours = api.store(api.configurations, configuration("ours", NAMESPACE))
    rest = RestClient(api)
    operations = _ca_bundle_patch(ours, "TkVX")
    ours["webhooks"].reverse()  # changed between our list and our patch

    with pytest.raises(Invalid):
        await rest.json_patch(
            VALIDATING_WEBHOOK_CONFIGURATION, None, "ours", operations, field_manager=FIELD_MANAGER
        )
    assert set(bundles(api, "ours")) == {b""}


async def test_run_retries_failed_passes_with_backoff_then_serves_the_pair() -> None:
    api = FakeApiServer(
        failures=[None, status(503, "ServiceUnavailable"), status(403, "Forbidden")]
    )
    tls = ReloadableServerTLS()
    backoff = Backoff(RealClock(), initial=0.001, cap=0.001, jitter=0.0)
    source = certificates(api=RestClient(api), backoff=backoff)
    with anyio.fail_after(10):
        async with anyio.create_task_group() as task_group:
            await task_group.start(source.run, tls)
            task_group.cancel_scope.cancel()
    current = stored(api)
    assert current is not None
    assert tls.has_certificate
    assert not tls.load(current.serving.cert_pem, current.serving.key_pem)  # already served
    assert [call.method for call in api.calls[:4]] == ["GET"] * 4


async def test_a_configuration_created_after_the_first_pass_gets_the_ca_at_once() -> None:
    api = FakeApiServer()
    tls = ReloadableServerTLS()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as task_group:
            # Long checks: only the watch can inject before the test gives up.
            source = certificates(api=RestClient(api), check_interval=timedelta(hours=1))
            await task_group.start(source.run, tls)
            await wait_until(lambda: bool(api.watches))
            api.add_configuration(configuration("ours", NAMESPACE))
            api.add_configuration(configuration("theirs", "elsewhere"))
            current = stored(api)
            assert current is not None
            await wait_until(lambda: set(bundles(api, "ours")) == {current.ca_bundle_pem})
            task_group.cancel_scope.cancel()
    assert set(bundles(api, "theirs")) == {b""}


async def wait_until(condition: Callable[[], bool]) -> None:
    for _ in range(500):
        if condition():
            return
        await anyio.sleep(0.01)
    raise AssertionError("never happened")


def test_patches_only_webhooks_whose_bundle_differs_guarded_by_name() -> None:
    configuration = {
        "webhooks": [
            {"name": "a.kb.io", "clientConfig": {"caBundle": "NEW"}},
            {"name": "b.kb.io", "clientConfig": {"caBundle": "OLD"}},
            {"name": "c.kb.io", "clientConfig": {"url": "https://127.0.0.1:1/x"}},
        ]
    }
    assert _ca_bundle_patch(configuration, "NEW") == [
        {"op": "test", "path": "/webhooks/1/name", "value": "b.kb.io"},
        {"op": "add", "path": "/webhooks/1/clientConfig/caBundle", "value": "NEW"},
        {"op": "test", "path": "/webhooks/2/name", "value": "c.kb.io"},
        {"op": "add", "path": "/webhooks/2/clientConfig/caBundle", "value": "NEW"},
    ]


def test_nothing_to_patch_when_every_bundle_is_current() -> None:
    configuration = {"webhooks": [{"name": "a", "clientConfig": {"caBundle": "NEW"}}]}
    assert _ca_bundle_patch(configuration, "NEW") == []
    assert _ca_bundle_patch({"webhooks": None}, "NEW") == []


def cert_manager_secret() -> dict[str, Any]:
    """A Secret as cert-manager's issuing controller leaves it: tls.crt, tls.key, ca.crt (no
    ca.key, so not ours to renew) and its annotations."""
    issued = generated()
    document = secret(
        {
            key: value
            for key, value in issued.to_secret_data().items()
            if key in ("tls.crt", "tls.key", "ca.crt")
        }
    )
    document["metadata"]["annotations"] = {
        CERT_MANAGER_CERTIFICATE_ANNOTATION: "dynamo-serving-cert",
        "cert-manager.io/issuer-name": "dynamo-ca-issuer",
    }
    return document


async def test_a_secret_cert_manager_issues_into_is_never_replaced() -> None:
    api = FakeApiServer()
    api.store(api.secrets, cert_manager_secret())
    before = api.secrets[SECRET_NAME]

    with pytest.raises(SecretOwnedElsewhereError, match="Certificate dynamo-serving-cert"):
        await certificates().ensure(RestClient(api))
    assert api.writes() == []
    assert api.secrets[SECRET_NAME] == before


async def test_run_keeps_refusing_and_never_serves_a_certificate_of_its_own() -> None:
    api = FakeApiServer()
    api.store(api.secrets, cert_manager_secret())
    tls = ReloadableServerTLS()
    backoff = Backoff(RealClock(), initial=0.001, cap=0.001, jitter=0.0)
    source = certificates(api=RestClient(api), backoff=backoff)
    async with anyio.create_task_group() as task_group:
        task_group.start_soon(source.run, tls)
        with anyio.fail_after(10):
            while len(api.calls) < 3:  # noqa: ASYNC110 - polling the fake's record
                await anyio.sleep(0.001)
        task_group.cancel_scope.cancel()
    assert not tls.has_certificate
    assert api.writes() == []


@pytest.mark.parametrize(
    "annotation", ["cert-manager.io/inject-ca-from", "cert-manager.io/inject-ca-from-secret"]
)
async def test_configurations_the_cainjector_fills_are_left_to_it(annotation: str) -> None:
    api = FakeApiServer()
    injected = configuration("injected", NAMESPACE, b"cert-manager's CA")
    injected["metadata"]["annotations"] = {annotation: f"{NAMESPACE}/dynamo-serving-cert"}
    api.store(api.configurations, injected)
    api.store(api.configurations, configuration("ours", NAMESPACE))

    current = await certificates().ensure(RestClient(api))

    assert set(bundles(api, "injected")) == {b"cert-manager's CA"}
    assert set(bundles(api, "ours")) == {current.ca_bundle_pem}
    assert [call.path for call in api.writes() if call.method == "PATCH"] == [
        f"{CONFIGURATIONS_PATH}/ours"
    ]
