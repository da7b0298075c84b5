"""The replicas a scaling adapter owns: who may change them in the graph, at both versions,
through the webhook's HTTP route (the validators scripted to allow, so only this rule decides)."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from e2e.support.admission_reviews import admission_review
from tests.webhooks.reviews import DCD_PATH, DGD_PATH, ScriptedValidator
from webhooks.app import build_app
from webhooks.replica_writers import ReplicaWriters

pytestmark = pytest.mark.anyio

Client = TestClient[Any, Any]
Edit = Callable[[dict[str, Any]], None]

ALICE = "alice"
OPERATOR = "system:serviceaccount:dynamo-system:dynamo-operator"
GITOPS = "system:serviceaccount:argocd:argocd-application-controller"
WRITERS = ReplicaWriters.of(
    [GITOPS], operator_namespace="dynamo-system", operator_service_account="dynamo-operator"
)

ALPHA: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "llm", "namespace": "default"},
    "spec": {
        "backendFramework": "vllm",
        "services": {
            "Frontend": {"componentType": "frontend", "replicas": 1},
            "VllmWorker": {
                "componentType": "worker",
                "replicas": 2,
                "scalingAdapter": {"enabled": True},
            },
        },
    },
}
BETA: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "llm", "namespace": "default"},
    "spec": {
        "backendFramework": "vllm",
        "components": [
            {"name": "Frontend", "type": "frontend", "replicas": 1},
            {"name": "VllmWorker", "type": "worker", "replicas": 2, "scalingAdapter": {}},
        ],
    },
}


def alpha_worker(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["spec"]["services"]["VllmWorker"]  # type: ignore[no-any-return]


def beta_worker(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["spec"]["components"][1]  # type: ignore[no-any-return]


WORKER = {"v1alpha1": (ALPHA, alpha_worker), "v1beta1": (BETA, beta_worker)}
PATH = {
    "v1alpha1": "spec.services.VllmWorker.replicas",
    "v1beta1": "spec.components[1].replicas",
}


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    async with TestClient(TestServer(build_app(ScriptedValidator(), replica_writers=WRITERS))) as c:
        yield c


async def update(
    client: Client, version: str, edit: Edit, *, user: str = ALICE, old_edit: Edit | None = None
) -> dict[str, Any]:
    """The answer to `user`'s update of the graph at `version` by `edit` (`old_edit` changes the
    stored graph first)."""
    base, _ = WORKER[version]
    old = copy.deepcopy(base)
    if old_edit is not None:
        old_edit(old)
    new = copy.deepcopy(old)
    edit(new)
    review = admission_review(new, operation="UPDATE", old=old, user=user)
    review["request"]["kind"]["version"] = version
    response = await client.post(DGD_PATH, json=review)
    assert response.status == 200
    answer: dict[str, Any] = (await response.json())["response"]
    return answer


def scale(version: str, replicas: int | None) -> Edit:
    _, worker = WORKER[version]

    def edit(obj: dict[str, Any]) -> None:
        if replicas is None:
            worker(obj).pop("replicas")
        else:
            worker(obj)["replicas"] = replicas

    return edit


VERSIONS = pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])


@VERSIONS
async def test_a_user_cannot_change_replicas_an_adapter_owns(client: Client, version: str) -> None:
    answer = await update(client, version, scale(version, 5))

    assert answer["allowed"] is False
    assert answer["status"]["code"] == 403
    message = answer["status"]["message"]
    assert message.startswith(f"{PATH[version]}: cannot be changed while service VllmWorker")
    assert "DynamoGraphDeploymentScalingAdapter llm-vllmworker" in message
    assert "kubectl scale dgdsa llm-vllmworker --replicas=5" in message


@VERSIONS
@pytest.mark.parametrize(
    "user",
    [
        OPERATOR,
        GITOPS,
        "system:serviceaccount:default:planner-serviceaccount",
        "system:serviceaccount:team-b:planner-serviceaccount",
    ],
    ids=["operator", "replica-writer-flag", "planner", "planner-other-namespace"],
)
async def test_the_operator_planners_and_named_writers_may(
    client: Client, version: str, user: str
) -> None:
    answer = await update(client, version, scale(version, 5), user=user)

    assert answer["allowed"] is True, answer


@VERSIONS
@pytest.mark.parametrize(
    "user",
    [
        "system:serviceaccount:dynamo-system:default",
        "system:serviceaccount:default:planner-serviceaccount-2",
        "planner-serviceaccount",
        "system:serviceaccount:a:b:planner-serviceaccount",
        "dynamo-operator",
    ],
)
async def test_lookalikes_of_writers_may_not(client: Client, version: str, user: str) -> None:
    answer = await update(client, version, scale(version, 5), user=user)

    assert answer["allowed"] is False


@VERSIONS
async def test_other_changes_to_a_scaled_service_are_allowed(client: Client, version: str) -> None:
    _, worker = WORKER[version]

    answer = await update(client, version, lambda obj: worker(obj).update(foo="bar"))
    assert answer["allowed"] is True, answer
    # Unset replicas mean one: writing the one it has is no change.
    answer = await update(client, version, scale(version, 1), old_edit=scale(version, None))
    assert answer["allowed"] is True, answer


@VERSIONS
async def test_replicas_of_services_without_an_adapter_are_the_users(
    client: Client, version: str
) -> None:
    def frontend(obj: dict[str, Any]) -> None:
        if version == "v1alpha1":
            obj["spec"]["services"]["Frontend"]["replicas"] = 3
        else:
            obj["spec"]["components"][0]["replicas"] = 3

    assert (await update(client, version, frontend))["allowed"] is True


@VERSIONS
async def test_the_stored_graph_says_whether_an_adapter_owns_the_replicas(
    client: Client, version: str
) -> None:
    _, worker = WORKER[version]

    def no_adapter(obj: dict[str, Any]) -> None:
        worker(obj).pop("scalingAdapter")

    def turn_on_and_scale(obj: dict[str, Any]) -> None:
        worker(obj)["scalingAdapter"] = {"enabled": True} if version == "v1alpha1" else {}
        worker(obj)["replicas"] = 5

    def turn_off_and_scale(obj: dict[str, Any]) -> None:
        no_adapter(obj)
        worker(obj)["replicas"] = 5

    turned_on = await update(client, version, turn_on_and_scale, old_edit=no_adapter)
    assert turned_on["allowed"] is True, turned_on
    turned_off = await update(client, version, turn_off_and_scale)
    assert turned_off["allowed"] is False
    # Off first, then the replicas: each update allowed.
    assert (await update(client, version, no_adapter))["allowed"] is True
    assert (await update(client, version, scale(version, 5), old_edit=no_adapter))[
        "allowed"
    ] is True


async def test_v1alpha1_empty_scaling_adapter_is_off_v1beta1_empty_is_on(client: Client) -> None:
    def empty(obj: dict[str, Any]) -> None:
        alpha_worker(obj)["scalingAdapter"] = {}

    answer = await update(client, "v1alpha1", scale("v1alpha1", 5), old_edit=empty)
    assert answer["allowed"] is True, answer
    assert (await update(client, "v1beta1", scale("v1beta1", 5)))["allowed"] is False


async def test_removing_a_scaled_service_is_not_a_replica_change(client: Client) -> None:
    answer = await update(client, "v1alpha1", lambda obj: obj["spec"]["services"].pop("VllmWorker"))

    assert answer["allowed"] is True, answer


async def test_every_scaled_service_changed_is_named(client: Client) -> None:
    def both_scaled(obj: dict[str, Any]) -> None:
        obj["spec"]["services"]["Frontend"]["scalingAdapter"] = {"enabled": True}

    def scale_both(obj: dict[str, Any]) -> None:
        for service in obj["spec"]["services"].values():
            service["replicas"] = 4

    answer = await update(client, "v1alpha1", scale_both, old_edit=both_scaled)

    message = answer["status"]["message"]
    assert "spec.services.Frontend.replicas: " in message
    assert "; spec.services.VllmWorker.replicas: " in message


async def test_component_deployments_are_not_concerned(client: Client) -> None:
    component = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "llm-vllmworker", "namespace": "default"},
        "spec": {"replicas": 1, "scalingAdapter": {"enabled": True}},
    }
    scaled = copy.deepcopy(component)
    scaled["spec"]["replicas"] = 4

    response = await client.post(
        DCD_PATH, json=admission_review(scaled, operation="UPDATE", old=component, user=ALICE)
    )

    assert (await response.json())["response"]["allowed"] is True


async def test_by_default_only_planners_may() -> None:
    async with TestClient(TestServer(build_app(ScriptedValidator()))) as client:
        assert (await update(client, "v1alpha1", scale("v1alpha1", 5), user=OPERATOR))[
            "allowed"
        ] is False
        planner = "system:serviceaccount:default:planner-serviceaccount"
        assert (await update(client, "v1alpha1", scale("v1alpha1", 5), user=planner))["allowed"]


def test_the_operators_account_is_a_writer_only_in_a_cluster() -> None:
    outside = ReplicaWriters.of(operator_namespace="dynamo", operator_service_account=None)
    inside = ReplicaWriters.of(operator_namespace="dynamo", operator_service_account="op")

    assert outside.usernames == frozenset()
    assert inside.usernames == {"system:serviceaccount:dynamo:op"}
    assert ReplicaWriters.of(["kubernetes-admin", ""]).usernames == {"kubernetes-admin"}


def test_a_malformed_old_graph_is_no_reason_to_fail_the_replica_check() -> None:
    writers = ReplicaWriters.of()
    new = {"metadata": {"name": "g"}, "spec": {"services": {}}}
    assert writers.refusal("someone", new, {"metadata": ["not", "a", "map"]}) is None
