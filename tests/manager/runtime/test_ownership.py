"""sync_children over a fake client and cache: what it writes, deletes, and which copy of a child
it hands back as the freshest (the e2e suite runs it against a real API server through
`dynamo-operator run`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import anyio
import pytest

from manager.runtime.cache import CacheReader
from manager.runtime.client import ApiError, Client, Forbidden, NotFound, with_applied_digest
from manager.runtime.identity import Identity
from manager.runtime.kinds import DEPLOYMENT, SERVICE, ResourceKind
from manager.runtime.ownership import ChildChanges, sync_children

pytestmark = pytest.mark.anyio

IDENTITY = Identity.for_product("test-operator", domain="example.com", version="0")
OWNER = {"kind": "Owner", "metadata": {"name": "o", "namespace": "ns", "uid": "owner-uid"}}


def deployment(resource_version: str, generation: int, observed: int, image: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "ns",
            "resourceVersion": resource_version,
            "generation": generation,
            "ownerReferences": [{"uid": "owner-uid", "controller": True}],
        },
        "spec": {"template": {"spec": {"containers": [{"name": "main", "image": image}]}}},
        "status": {"observedGeneration": observed},
    }


def desired(image: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "ns"},
        "spec": {"template": {"spec": {"containers": [{"name": "main", "image": image}]}}},
    }


class FakeClient:
    """Answers an apply the way the API server does: the object with a new resourceVersion and,
    when the spec changed, a new generation its controller has not observed."""

    def __init__(self, answer: dict[str, Any] | None = None) -> None:
        self.identity = IDENTITY
        self.answer = answer
        self.applied: list[dict[str, Any]] = []
        self.deleted: list[str] = []

    def kind_of(self, obj: Mapping[str, Any]) -> ResourceKind:
        return {"Deployment": DEPLOYMENT, "Service": SERVICE}[obj["kind"]]

    apply_if_changed = Client.apply_if_changed  # the real compare, over this fake's apply
    needs_apply = Client.needs_apply
    _delete_if_immutable_changed = Client._delete_if_immutable_changed
    _clear_server_defaults = Client._clear_server_defaults

    async def apply(self, obj: dict[str, Any], field_manager: str | None = None) -> dict[str, Any]:
        self.applied.append(obj)
        assert self.answer is not None
        return self.answer

    async def create(self, obj: dict[str, Any], field_manager: str | None = None) -> dict[str, Any]:
        return await self.apply(obj)  # a POST answers as an apply does

    async def _adopt_created_fields(self, live: Mapping[str, Any]) -> None:
        """Nothing to adopt: this server keeps no managedFields."""

    async def delete(self, kind: ResourceKind, namespace: str, name: str) -> bool:
        self.deleted.append(f"{kind.kind}/{name}")
        return True


class FakeReader:
    def __init__(self, *objects: dict[str, Any]) -> None:
        self.objects = list(objects)

    def has_synced(self, kind: ResourceKind) -> bool:
        return True

    def get(self, kind: ResourceKind, namespace: str, name: str) -> dict[str, Any] | None:
        return next(
            (o for o in self.objects if (o["kind"], o["metadata"]["name"]) == (kind.kind, name)),
            None,
        )

    def list(self, kind: ResourceKind, namespace: str, *, owner_uid: str) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] == kind.kind]


async def sync(client: FakeClient, reader: FakeReader, *children: dict[str, Any]) -> ChildChanges:
    return await sync_children(
        cast(Client, client), cast(CacheReader, reader), OWNER, children, (DEPLOYMENT, SERVICE)
    )


async def test_a_written_child_is_read_from_the_servers_answer_not_the_stale_cache() -> None:
    cached = deployment("10", generation=1, observed=1, image="v1")  # rolled out, old spec
    answer = deployment("11", generation=2, observed=1, image="v2")
    client = FakeClient(answer)

    changes = await sync(client, FakeReader(cached), desired("v2"))

    assert changes.updated == ["Deployment/web"]
    assert changes.freshest("Deployment", "web", cached) is answer
    annotations = client.applied[0]["metadata"]["annotations"]
    assert IDENTITY.applied_digest_annotation in annotations


async def test_a_cache_that_caught_up_past_the_write_is_the_freshest() -> None:
    client = FakeClient(deployment("11", generation=2, observed=1, image="v2"))
    changes = await sync(client, FakeReader(deployment("10", 1, 1, "v1")), desired("v2"))

    newer = deployment("12", generation=2, observed=2, image="v2")
    assert changes.freshest("Deployment", "web", newer) is newer


async def test_a_created_child_is_its_answer_until_the_cache_has_it() -> None:
    answer = deployment("5", generation=1, observed=0, image="v1")
    changes = await sync(FakeClient(answer), FakeReader(), desired("v1"))

    assert changes.created == ["Deployment/web"]
    assert changes.freshest("Deployment", "web", None) is answer


async def test_an_unchanged_child_is_not_written_and_the_cache_is_the_freshest() -> None:
    stamped = with_applied_digest(desired("v1"), IDENTITY.applied_digest_annotation)
    cached = deployment("3", generation=1, observed=1, image="v1")
    cached["metadata"]["annotations"] = stamped["metadata"]["annotations"]
    client = FakeClient()

    changes = await sync(client, FakeReader(cached), desired("v1"))

    assert not changes
    assert client.applied == []
    assert changes.freshest("Deployment", "web", cached) is cached


async def test_controlled_children_no_longer_desired_are_deleted() -> None:
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "web",
            "namespace": "ns",
            "ownerReferences": [{"uid": "owner-uid", "controller": True}],
        },
    }
    client = FakeClient(deployment("2", 1, 0, "v1"))

    changes = await sync(client, FakeReader(service), desired("v1"))

    assert changes.deleted == ["Service/web"]
    assert client.deleted == ["Service/web"]


def refusal(error_class: type[ApiError], code: int, details: dict[str, Any]) -> ApiError:
    status = {"kind": "Status", "code": code, "reason": error_class.__name__, "details": details}
    return error_class(code, error_class.__name__, "refused", status)


TERMINATING = refusal(
    Forbidden,
    403,
    {"kind": "deployments", "causes": [{"reason": "NamespaceTerminating", "field": "ns"}]},
)


class RefusingClient(FakeClient):
    def __init__(self, error: ApiError) -> None:
        super().__init__()
        self.error = error

    async def apply(self, obj: dict[str, Any], field_manager: str | None = None) -> dict[str, Any]:
        self.applied.append(obj)
        raise self.error


@pytest.mark.parametrize(
    "error",
    [TERMINATING, refusal(NotFound, 404, {"name": "ns", "kind": "namespaces"})],
    ids=["namespace-terminating", "namespace-gone"],
)
async def test_a_namespace_going_away_stops_the_sync_without_an_error(error: ApiError) -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}
    client = RefusingClient(error)

    changes = await sync(client, FakeReader(), desired("v1"), service)

    assert changes.namespace_terminating
    assert len(client.applied) == 2, "each child tried once, side by side"
    assert client.deleted == [], "nothing deleted in a namespace going away"
    assert not changes


@pytest.mark.parametrize(
    "error",
    [
        refusal(Forbidden, 403, {"kind": "deployments"}),  # RBAC: the operator's to fix
        refusal(NotFound, 404, {"kind": "dynamocomponentdeployments"}),
    ],
    ids=["rbac", "other-not-found"],
)
async def test_other_refusals_are_errors(error: ApiError) -> None:
    with pytest.raises(type(error)):
        await sync(RefusingClient(error), FakeReader(), desired("v1"))


class MeetingClient(FakeClient):
    """Each apply waits until every child's apply has started: only applies made side by side
    ever finish."""

    def __init__(self, children: int) -> None:
        super().__init__()
        self.started = 0
        self.children = children
        self.everyone_started = anyio.Event()

    async def apply(self, obj: dict[str, Any], field_manager: str | None = None) -> dict[str, Any]:
        self.applied.append(obj)
        self.started += 1
        if self.started == self.children:
            self.everyone_started.set()
        await self.everyone_started.wait()
        return {**obj, "metadata": {**obj["metadata"], "resourceVersion": "7"}}


async def test_the_children_of_one_owner_are_applied_side_by_side() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}
    client = MeetingClient(children=2)

    with anyio.fail_after(10):  # one apply after the other would wait here forever
        changes = await sync(client, FakeReader(), desired("v1"), service)

    assert changes.created == ["Deployment/web", "Service/web"], "in the desired order"


class FailingServiceClient(FakeClient):
    async def apply(self, obj: dict[str, Any], field_manager: str | None = None) -> dict[str, Any]:
        self.applied.append(obj)
        if obj["kind"] == "Service":
            raise refusal(Forbidden, 403, {"kind": "services"})
        return {**obj, "metadata": {**obj["metadata"], "resourceVersion": "7"}}


async def test_one_refused_child_does_not_keep_the_others_from_being_applied() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}
    client = FailingServiceClient()

    with pytest.raises(Forbidden):
        await sync(client, FakeReader(), service, desired("v1"))

    assert sorted(obj["kind"] for obj in client.applied) == ["Deployment", "Service"]


def test_changes_are_announced_with_one_event_per_kind_of_write() -> None:
    events: list[tuple[str, str, str]] = []

    class Recorder:
        def event(self, obj: Any, event_type: str, reason: str, message: str) -> None:
            events.append((event_type, reason, message))

    changes = ChildChanges(
        created=["Deployment/a", "Service/a"], updated=["Role/a"], deleted=["Ingress/a"]
    )
    reported = {"metadata": {"name": "owner", "generation": 2}, "status": {"observedGeneration": 2}}
    changes.announce(Recorder(), reported)  # type: ignore[arg-type]

    assert events == [
        ("Normal", "Created", "Created Deployment/a, Service/a"),
        ("Normal", "Updated", "Updated Role/a"),
        ("Normal", "Deleted", "Deleted Ingress/a"),
    ]


@pytest.mark.parametrize(
    "status", [None, {}, {"observedGeneration": 1}], ids=["new", "no-generation", "new-spec"]
)
def test_writes_carrying_out_a_spec_not_reported_yet_are_not_announced_but_deletions_are(
    status: dict[str, Any] | None,
) -> None:
    events: list[tuple[str, str, str]] = []

    class Recorder:
        def event(self, obj: Any, event_type: str, reason: str, message: str) -> None:
            events.append((event_type, reason, message))

    changes = ChildChanges(created=["Deployment/a"], updated=["Role/a"], deleted=["Ingress/a"])
    owner: dict[str, Any] = {"metadata": {"name": "owner", "generation": 2}}
    if status is not None:
        owner["status"] = status
    changes.announce(Recorder(), owner)  # type: ignore[arg-type]

    assert events == [("Normal", "Deleted", "Deleted Ingress/a")]
