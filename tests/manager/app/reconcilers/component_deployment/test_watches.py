"""The index a component finds the co-owners of its base model's Service through gives the same
owners as reading every component of the namespace; a change to the namespace's discovery account
wakes a component that runs as it."""

from __future__ import annotations

from typing import Any

from dynamo_operator.builders import build_model_service_owners, model_service_key
from dynamo_operator.constants import Annotations
from dynamo_operator.settings import OperatorSettings
from manager.app.kinds import COMPONENT
from manager.app.reconcilers.component_deployment.watches import (
    SERVED_MODEL_INDEX,
    discovery_access_requests,
    served_model_index,
)
from manager.runtime.cache import Cache
from manager.runtime.cache.store import Store
from manager.runtime.controller import Request
from manager.runtime.kinds import SERVICE_ACCOUNT


def component(namespace: str, name: str, base_model: str | None, **metadata: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"componentType": "worker"}
    if base_model is not None:
        spec["modelRef"] = {"name": base_model}
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"namespace": namespace, "name": name, "uid": f"uid-{name}", **metadata},
        "spec": spec,
    }


COMPONENTS = [
    component("a", "prefill", "Qwen/Qwen3-0.6B"),
    component("a", "decode", "Qwen/Qwen3-0.6B"),
    component("a", "other", "meta-llama/Llama-3.1-8B"),
    component("a", "frontend", None),
    component("a", "leaving", "Qwen/Qwen3-0.6B", deletionTimestamp="2026-11-26T00:00:00Z"),
    component("b", "prefill", "Qwen/Qwen3-0.6B"),
]


def test_the_index_finds_the_same_owners_as_a_scan_of_every_component() -> None:
    store = Store({SERVED_MODEL_INDEX: served_model_index})
    for obj in COMPONENTS:
        store.upsert(obj)
    everyone = build_model_service_owners(COMPONENTS)
    assert set(everyone) == {
        ("a", "Qwen/Qwen3-0.6B"),
        ("a", "meta-llama/Llama-3.1-8B"),
        ("b", "Qwen/Qwen3-0.6B"),
    }
    for namespace, base_model in everyone:
        sharing = store.by_index(SERVED_MODEL_INDEX, model_service_key(namespace, base_model))
        assert build_model_service_owners(sharing) == {
            (namespace, base_model): everyone[(namespace, base_model)]
        }
    qwen_in_a = everyone[("a", "Qwen/Qwen3-0.6B")]
    assert [owner["name"] for owner in qwen_in_a] == ["decode", "prefill"]


def test_a_component_serving_no_model_is_not_indexed() -> None:
    assert served_model_index(component("a", "frontend", None)) == []
    assert served_model_index(component("a", "w", "m")) == ["a/m"]


def test_a_change_to_the_namespace_discovery_account_wakes_a_component_running_as_it() -> None:
    cache = Cache(None)
    on_etcd = component("a", "etcd-one", None)
    on_etcd["spec"]["annotations"] = {Annotations.DISCOVERY_BACKEND: "etcd"}
    cache.register(COMPONENT).replace([on_etcd, component("a", "frontend", None)], "1")
    account = {
        "kind": "ServiceAccount",
        "metadata": {"namespace": "a", "name": "dynamo-k8s-discovery"},
    }
    cache.register(SERVICE_ACCOUNT).replace([account], "1")
    binding = {
        "kind": "RoleBinding",
        "metadata": {
            "namespace": "a",
            "name": "dynamo-k8s-discovery-binding",
            "ownerReferences": [{"kind": "ServiceAccount", "name": "dynamo-k8s-discovery"}],
        },
    }
    requests = discovery_access_requests(COMPONENT, lambda: OperatorSettings())

    assert list(requests(account, cache.reader)) == [Request("a", "frontend")]
    assert list(requests(binding, cache.reader)) == [Request("a", "frontend")]
    other = {"kind": "ServiceAccount", "metadata": {"namespace": "a", "name": "someone-else"}}
    assert list(requests(other, cache.reader)) == []
