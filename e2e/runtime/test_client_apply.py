"""The client against a real kube-apiserver: server-side apply that writes only when something
changed, status writes that compare the whole status and remove what the operator stopped
reporting, and the error hierarchy for the statuses the server really sends."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from prometheus_client import REGISTRY

from manager.runtime.cache import Cache
from manager.runtime.client import (
    AlreadyExists,
    Client,
    Conflict,
    Invalid,
    KindRegistry,
    NotFound,
    RestClient,
    find_status_difference,
)
from manager.runtime.client.transport import HttpResponse, StreamResponse, Transport
from manager.runtime.discovery import Discovery
from manager.runtime.identity import Identity
from manager.runtime.kinds import CONFIG_MAP, DEPLOYMENT, ResourceKind

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

IDENTITY = Identity.for_product("e2e-operator", domain="example.com", version="0")
GRAPH_API_VERSION = "nvidia.com/v1alpha1"


@dataclass
class CountingTransport:
    """Every request the client sends, recorded on its way to the real API server."""

    inner: Transport
    requests: list[tuple[str, str]] = field(default_factory=list)

    @property
    def server(self) -> str:
        return self.inner.server

    async def request(self, method: str, path: str, **options: Any) -> HttpResponse:
        self.requests.append((method, path))
        return await self.inner.request(method, path, **options)

    def stream(
        self, path: str, **options: Any
    ) -> contextlib.AbstractAsyncContextManager[StreamResponse]:
        self.requests.append(("WATCH", path))
        return self.inner.stream(path, **options)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture
async def cache(api: Any, namespace: str) -> AsyncIterator[Cache]:
    """The namespace's cache, running; informers start on first use."""
    cache = Cache(api, namespace=namespace)
    async with anyio.create_task_group() as tg:
        await tg.start(cache.run)
        yield cache
        tg.cancel_scope.cancel()


@pytest.fixture
async def graph_kind(api: Any, installed_crds: list[Any]) -> ResourceKind:
    discovery = Discovery(RestClient.for_api(api))
    return await discovery.resolve(GRAPH_API_VERSION, "DynamoGraphDeployment")


@pytest.fixture
def client(counted: CountingTransport, graph_kind: ResourceKind) -> Client:
    """Writes through the counting transport; kinds resolved up front, as at start-up."""
    kinds = KindRegistry()
    kinds.add(graph_kind)
    return Client(RestClient(counted), IDENTITY, kinds=kinds)


def writes() -> float:
    """Mutating requests sent so far (all hosts), from the client's own metric."""
    total = 0.0
    for metric in REGISTRY.collect():
        if metric.name == "rest_client_requests":
            for sample in metric.samples:
                if sample.name.endswith("_total") and sample.labels["method"] != "GET":
                    total += sample.value
    return total


def deployment(namespace: str, replicas: int = 2, cpu: str = "500m") -> dict[str, Any]:
    labels = {"app": "web"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": namespace, "labels": labels},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": "registry.invalid/web:1",
                            "ports": [{"name": "http", "containerPort": 8000}],
                            "resources": {"requests": {"cpu": cpu, "memory": "0.5Gi"}},
                        }
                    ]
                },
            },
        },
    }


async def cached(cache: Cache, kind: ResourceKind, namespace: str, name: str) -> dict[str, Any]:
    """The object as the cache holds it, once the watch has delivered our latest write (or a
    later one: the deployment controller keeps writing status). Comparing resourceVersions as
    numbers is fine on a test cluster, where they are etcd revisions."""
    live = await RestClient.for_api(cache.api).get(kind, namespace, name)
    informer = cache.get_informer(kind)
    with anyio.fail_after(30):
        await informer.wait_for_sync()
        while True:
            obj = cache.reader.get(kind, namespace, name)
            if obj is not None and int(obj["metadata"]["resourceVersion"]) >= int(
                live["metadata"]["resourceVersion"]
            ):
                return obj
            await anyio.sleep(0.1)


async def test_apply_if_changed_writes_once_then_nothing_until_the_intent_changes(
    client: Client, cache: Cache, namespace: str
) -> None:
    kind = DEPLOYMENT
    desired = deployment(namespace)

    assert await client.apply_if_changed(desired, None) is not None
    annotations = (await cached(cache, kind, namespace, "web"))["metadata"]["annotations"]
    assert IDENTITY.applied_digest_annotation in annotations  # the product's domain, not ours
    before = writes()
    for _ in range(3):
        live = await cached(cache, kind, namespace, "web")
        assert await client.apply_if_changed(copy.deepcopy(desired), live) is None
    assert writes() == before  # server defaults and quantity spellings do not cause writes

    for replicas, adoption in ((3, 1), (4, 0)):
        before = writes()
        live = await cached(cache, kind, namespace, "web")
        assert await client.apply_if_changed(deployment(namespace, replicas), live) is not None
        assert writes() == before + adoption + 1  # the created fields adopted the first time
        assert (await cached(cache, kind, namespace, "web"))["spec"]["replicas"] == replicas


def managers(obj: Mapping[str, Any]) -> set[tuple[str, str]]:
    return {(e["manager"], e["operation"]) for e in obj["metadata"]["managedFields"]}


async def test_a_child_is_created_with_post_and_its_fields_adopted_by_the_first_change(
    client: Client, cache: Cache, namespace: str
) -> None:
    await client.apply_if_changed(deployment(namespace), None)
    created = await client.rest.get(DEPLOYMENT, namespace, "web")
    assert (IDENTITY.create_field_manager, "Update") in managers(created)
    assert (IDENTITY.field_manager, "Apply") not in managers(created)

    live = await cached(cache, DEPLOYMENT, namespace, "web")
    await client.apply_if_changed(deployment(namespace, cpu="1"), live)

    changed = await client.rest.get(DEPLOYMENT, namespace, "web")
    ours = {m for m in managers(changed) if m[0].startswith(IDENTITY.name)}
    assert ours == {(IDENTITY.field_manager, "Apply")}


async def test_a_child_the_cache_has_not_seen_is_applied_over_the_one_that_exists(
    client: Client, cache: Cache, namespace: str
) -> None:
    labelled = deployment(namespace)
    labelled["metadata"]["labels"] = {"app": "web", "tier": "front"}
    await client.apply_if_changed(labelled, None)
    before = writes()

    answer = await client.apply_if_changed(
        {**labelled, "spec": {**labelled["spec"], "replicas": 5}}, None
    )

    assert answer is not None
    assert answer["spec"]["replicas"] == 5
    assert writes() == before + 2  # the POST the server refused, then the apply
    # Both the POST's entry and the apply's: the first change drops the POST's, and a label
    # both set is the apply's alone, which it can remove.
    live = await cached(cache, DEPLOYMENT, namespace, "web")
    assert await client.apply_if_changed(deployment(namespace), live) is not None
    live = await client.rest.get(DEPLOYMENT, namespace, "web")
    assert live["metadata"]["labels"] == {"app": "web"}
    assert IDENTITY.create_field_manager not in {
        e["manager"] for e in live["metadata"]["managedFields"]
    }


async def test_an_adoption_read_from_a_stale_cache_is_a_conflict_not_a_clobber(
    client: Client, cache: Cache, namespace: str
) -> None:
    await client.apply_if_changed(deployment(namespace), None)
    live = copy.deepcopy(await cached(cache, DEPLOYMENT, namespace, "web"))
    # As if another manager's entry had come before the POST's when the cache read them.
    live["metadata"]["managedFields"].insert(0, {"manager": "other", "operation": "Update"})

    with pytest.raises(Conflict):
        await client.apply_if_changed(deployment(namespace, replicas=3), live)

    server = await client.rest.get(DEPLOYMENT, namespace, "web")
    assert (IDENTITY.create_field_manager, "Update") in managers(server)
    assert server["spec"]["replicas"] == 2


async def test_fields_another_manager_took_after_the_creation_stay_theirs(
    client: Client, cache: Cache, namespace: str
) -> None:
    # An autoscaler's replicas: the operator leaves them out of what it applies.
    unscaled = deployment(namespace)
    del unscaled["spec"]["replicas"]
    await client.apply_if_changed(unscaled, None)
    await client.rest.merge_patch(
        DEPLOYMENT, namespace, "web", {"spec": {"replicas": 4}}, field_manager="autoscaler"
    )

    live = await cached(cache, DEPLOYMENT, namespace, "web")
    relabelled = copy.deepcopy(unscaled)
    relabelled["metadata"]["labels"] = {"app": "web", "tier": "front"}
    await client.apply_if_changed(relabelled, live)

    live = await client.rest.get(DEPLOYMENT, namespace, "web")
    assert live["spec"]["replicas"] == 4
    assert live["metadata"]["labels"]["tier"] == "front"


async def test_apply_if_changed_removes_a_field_the_controller_stopped_setting(
    client: Client, cache: Cache, namespace: str
) -> None:
    kind = DEPLOYMENT
    with_limit = deployment(namespace)
    container = with_limit["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["limits"] = {"nvidia.com/gpu": "1"}
    with_limit["metadata"]["labels"] = {"app": "web", "tier": "front"}
    assert await client.apply_if_changed(with_limit, None) is not None

    live = await cached(cache, kind, namespace, "web")
    assert await client.apply_if_changed(deployment(namespace), live) is not None

    live = await cached(cache, kind, namespace, "web")
    resources = live["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert "limits" not in resources
    assert "tier" not in live["metadata"]["labels"]
    assert await client.apply_if_changed(deployment(namespace), live) is None


async def test_a_deployment_the_server_defaulted_switches_to_recreate(
    client: Client, cache: Cache, namespace: str
) -> None:
    # Applied without a strategy (as an operator release that set none did): the API server fills
    # in RollingUpdate with a rollingUpdate no manager owns, which an apply cannot remove.
    assert await client.apply_if_changed(deployment(namespace), None) is not None
    live = await cached(cache, DEPLOYMENT, namespace, "web")
    assert "rollingUpdate" in live["spec"]["strategy"]
    recreate = deployment(namespace)
    recreate["spec"]["strategy"] = {"type": "Recreate"}

    assert await client.apply_if_changed(recreate, live) is not None

    live = await cached(cache, DEPLOYMENT, namespace, "web")
    assert live["spec"]["strategy"] == {"type": "Recreate"}
    assert await client.apply_if_changed(recreate, live) is None


async def test_apply_keeps_fields_owned_by_other_managers(
    client: Client, cache: Cache, namespace: str
) -> None:
    await client.apply(
        {**config_map(namespace, "shared"), "data": {"ours": "1"}}, field_manager="first"
    )
    await client.apply(
        {**config_map(namespace, "shared"), "data": {"theirs": "2"}}, field_manager="second"
    )

    live = await cached(cache, CONFIG_MAP, namespace, "shared")
    assert live["data"] == {"ours": "1", "theirs": "2"}


def config_map(namespace: str, name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
    }


async def test_the_server_statuses_map_to_the_error_hierarchy(
    client: Client, namespace: str
) -> None:
    created = await client.create({**config_map(namespace, "cm"), "data": {"a": "1"}})

    with pytest.raises(AlreadyExists):
        await client.create(config_map(namespace, "cm"))
    with pytest.raises(NotFound):
        await client.rest.get(CONFIG_MAP, namespace, "missing")
    stale = {**created, "data": {"a": "2"}}
    await client.rest.replace(CONFIG_MAP, {**created, "data": {"a": "3"}}, field_manager="t")
    with pytest.raises(Conflict):
        await client.rest.replace(CONFIG_MAP, stale, field_manager="t")
    with pytest.raises(Invalid) as invalid:
        await client.create(config_map(namespace, "Not_A_Valid_Name"))
    assert "metadata.name" in str(invalid.value)


async def test_deletes_are_idempotent(client: Client, namespace: str) -> None:
    await client.create(config_map(namespace, "a"))

    assert await client.delete(CONFIG_MAP, namespace, "a") is True
    assert await client.delete(CONFIG_MAP, namespace, "a") is False


# Status -------------------------------------------------------------------------------------


def graph(namespace: str, name: str = "graph") -> dict[str, Any]:
    """A DynamoGraphDeployment: its CRD requires `spec` and has a status subresource."""
    return {
        "apiVersion": GRAPH_API_VERSION,
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"services": {}},
    }


def condition(kind: str, status: str) -> dict[str, Any]:
    return {
        "type": kind,
        "status": status,
        "reason": "Reconciled",
        "message": f"{kind} is {status}",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }


FULL_STATUS: dict[str, Any] = {
    "state": "pending",
    "observedGeneration": 1,
    "conditions": [condition("Ready", "False"), condition("Progressing", "True")],
    "services": {"Frontend": {"componentKind": "Deployment", "replicas": 2, "readyReplicas": 1}},
}


def requests_after(counted: CountingTransport, mark: int) -> list[tuple[str, str]]:
    return counted.requests[mark:]


@contextlib.contextmanager
def no_request_made(counted: CountingTransport) -> Iterator[None]:
    mark = len(counted.requests)
    yield
    assert requests_after(counted, mark) == []


def assert_status(obj: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    assert find_status_difference(expected, obj.get("status")) is None, obj.get("status")


async def test_a_status_is_written_once_without_spec_then_never_while_unchanged(
    client: Client,
    cache: Cache,
    graph_kind: ResourceKind,
    namespace: str,
    counted: CountingTransport,
) -> None:
    await client.create(graph(namespace))
    live = await cached(cache, graph_kind, namespace, "graph")

    mark = len(counted.requests)
    assert await client.apply_status_if_changed(FULL_STATUS, live) is True
    [(method, path)] = requests_after(counted, mark)  # one request, whose body has no spec
    assert (method, path.rpartition("/")[2]) == ("PATCH", "status")

    live = await cached(cache, graph_kind, namespace, "graph")
    assert_status(live, FULL_STATUS)
    with no_request_made(counted):
        for _ in range(3):
            assert await client.apply_status_if_changed(copy.deepcopy(FULL_STATUS), live) is False

    server = await client.rest.get(graph_kind, namespace, "graph")
    [status_entry] = [e for e in server["metadata"]["managedFields"] if e.get("subresource")]
    assert (status_entry["manager"], status_entry["operation"]) == ("e2e-operator", "Apply")


async def test_a_status_key_the_operator_stops_reporting_disappears(
    client: Client,
    cache: Cache,
    graph_kind: ResourceKind,
    namespace: str,
    counted: CountingTransport,
) -> None:
    await client.create(graph(namespace))
    live = await cached(cache, graph_kind, namespace, "graph")
    assert await client.apply_status_if_changed(FULL_STATUS, live) is True
    live = await cached(cache, graph_kind, namespace, "graph")

    smaller = {"state": "successful", "conditions": [condition("Ready", "True")]}
    mark = len(counted.requests)
    assert await client.apply_status_if_changed(smaller, live) is True
    assert len(requests_after(counted, mark)) == 1

    server = await client.rest.get(graph_kind, namespace, "graph")
    assert server["status"] == smaller  # observedGeneration, services and Progressing are gone
    live = await cached(cache, graph_kind, namespace, "graph")
    with no_request_made(counted):
        assert await client.apply_status_if_changed(smaller, live) is False


async def test_status_fields_written_by_another_manager_are_removed_too(
    client: Client,
    cache: Cache,
    graph_kind: ResourceKind,
    namespace: str,
    counted: CountingTransport,
) -> None:
    created = await client.create(graph(namespace))
    # An earlier writer (a PUT, as a previous operator version would do) owns these fields.
    await client.update_status({**created, "status": FULL_STATUS}, field_manager="someone-else")
    live = await cached(cache, graph_kind, namespace, "graph")
    assert_status(live, FULL_STATUS)

    for status in (
        {"state": "successful", "conditions": [condition("Ready", "True")]},
        {
            "state": "successful",
            "conditions": [condition("Ready", "True")],
            "observedGeneration": 2,
        },
        {"state": "failed"},  # drops Ready, which both managers own parts of
    ):
        mark = len(counted.requests)
        assert await client.apply_status_if_changed(status, live) is True
        assert len(requests_after(counted, mark)) == 1
        server = await client.rest.get(graph_kind, namespace, "graph")
        assert server["status"] == status
        live = await cached(cache, graph_kind, namespace, "graph")
        with no_request_made(counted):
            assert await client.apply_status_if_changed(status, live) is False


async def test_server_side_apply_removes_only_the_status_fields_its_manager_alone_owns(
    client: Client, graph_kind: ResourceKind, namespace: str
) -> None:
    """Why `apply_status_if_changed` removes with a merge patch: the server's own rules."""
    await client.create(graph(namespace))
    names = {key: value for key, value in graph(namespace).items() if key != "spec"}

    await client.apply_status({**names, "status": {"state": "pending", "observedGeneration": 1}})
    after = await client.apply_status({**names, "status": {"state": "pending"}})
    assert after["status"] == {"state": "pending"}, "a field only this manager applied is removed"

    foreign = {**after, "status": {"state": "pending", "observedGeneration": 2}}
    await client.update_status(foreign, field_manager="someone-else")
    after = await client.apply_status({**names, "status": {"state": "failed"}})
    assert after["status"] == {"state": "failed", "observedGeneration": 2}, "a PUT's field stays"


async def test_a_status_back_to_what_a_stale_cache_holds_is_still_written(
    client: Client, cache: Cache, graph_kind: ResourceKind, namespace: str
) -> None:
    """Right after a write the cache still shows the old status; going back to it must not be
    skipped as 'unchanged', or the server would keep the status just written."""
    await client.create(graph(namespace))
    old = {"state": "pending"}
    await client.apply_status_if_changed(old, await cached(cache, graph_kind, namespace, "graph"))
    live = await cached(cache, graph_kind, namespace, "graph")
    assert_status(live, old)

    assert await client.apply_status_if_changed(FULL_STATUS, live) is True
    # `live` is what the cache held before that write: it already agrees with `old`.
    assert await client.apply_status_if_changed(old, live) is True
    server = await client.rest.get(graph_kind, namespace, "graph")
    assert server["status"] == old


async def test_the_same_verdict_stamped_later_from_a_cache_behind_the_write_is_not_written(
    client: Client,
    cache: Cache,
    graph_kind: ResourceKind,
    namespace: str,
    counted: CountingTransport,
) -> None:
    """A pass that reads the cache before it shows the status just written stamps the
    conditions the cache lacks with its own time: the same verdict, not a second write."""
    await client.create(graph(namespace))
    stale = await cached(cache, graph_kind, namespace, "graph")
    assert await client.apply_status_if_changed(FULL_STATUS, stale) is True
    a_second_later = {
        **FULL_STATUS,
        "conditions": [
            {**c, "lastTransitionTime": "2026-01-01T00:00:01Z"} for c in FULL_STATUS["conditions"]
        ],
    }
    with no_request_made(counted):
        assert await client.apply_status_if_changed(a_second_later, stale) is False
    server = await client.rest.get(graph_kind, namespace, "graph")
    assert_status(server, FULL_STATUS)
