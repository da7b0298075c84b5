"""Golden render cases: every directory under ``builders/golden`` holds ``input.yaml`` (documents),
an optional ``settings.yaml`` (OperatorSettings keyword arguments) and ``expected.yaml`` (the
warnings and every rendered object). Regenerate after an intended change with
``DYNAMO_UPDATE_GOLDENS=1 pytest tests/dynamo_operator/test_render.py`` and review the diff.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_operator.errors import RenderError
from dynamo_operator.render import render_objects
from dynamo_operator.settings import OperatorSettings

GOLDEN = Path(__file__).parent / "builders" / "golden"
CASES = sorted(path.name for path in GOLDEN.iterdir() if (path / "input.yaml").exists())
UPDATE = os.environ.get("DYNAMO_UPDATE_GOLDENS") == "1"


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def load_documents(case: str) -> list[dict[str, Any]]:
    text = (GOLDEN / case / "input.yaml").read_text()
    return [doc for doc in yaml.safe_load_all(text) if doc]


def load_settings(case: str) -> OperatorSettings:
    path = GOLDEN / case / "settings.yaml"
    if not path.exists():
        return OperatorSettings()
    values = yaml.safe_load(path.read_text())
    if "available_apis" in values:
        values["available_apis"] = frozenset(values["available_apis"])
    return OperatorSettings(**values)


def render_case(case: str) -> dict[str, Any]:
    result = render_objects(load_documents(case), load_settings(case))
    return {"warnings": result.warnings, "objects": result.objects}


@pytest.mark.parametrize("case", CASES)
def test_render_matches_golden(case: str) -> None:
    rendered = render_case(case)
    expected_path = GOLDEN / case / "expected.yaml"
    if UPDATE:
        expected_path.write_text(
            yaml.dump(rendered, Dumper=_NoAliasDumper, sort_keys=False, width=100)
        )
    assert expected_path.exists(), f"no golden for {case}; run with DYNAMO_UPDATE_GOLDENS=1"
    assert rendered == yaml.safe_load(expected_path.read_text())


@pytest.mark.parametrize("case", CASES)
def test_render_never_mutates_its_input(case: str) -> None:
    documents = load_documents(case)
    pristine = copy.deepcopy(documents)
    render_objects(documents, load_settings(case))
    assert documents == pristine


@pytest.mark.parametrize("case", CASES)
def test_render_is_deterministic_and_unaliased(case: str) -> None:
    first = render_case(case)
    second = render_case(case)
    assert first == second
    # Mutating one rendered object must not leak into another (no shared sub-objects).
    text = yaml.dump(first, Dumper=yaml.SafeDumper)
    assert "&id" not in text


def _graph(services: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"services": services, **spec},
    }


def test_objects_without_namespace_go_to_the_default_namespace() -> None:
    result = render_objects(
        [_graph({"Frontend": {"componentType": "frontend"}})],
        OperatorSettings(),
        default_namespace="elsewhere",
    )
    assert {obj["metadata"]["namespace"] for obj in result.objects} == {"elsewhere"}


SHARED = {"ServiceAccount", "Role", "RoleBinding"}
"""What the graphs of a namespace share rather than own as controller (discovery, planner)."""


def test_every_child_but_created_claims_names_its_parent_as_controller() -> None:
    result = render_objects(load_documents("worker-vllm-volumes"), OperatorSettings())
    children = [obj for obj in result.objects if obj["kind"] not in SHARED]
    assert len(children) == 4
    for obj in children:
        if obj["kind"] == "PersistentVolumeClaim":
            # Claims hold data: deleting the graph must keep them, so nothing owns them.
            assert "ownerReferences" not in obj["metadata"]
            assert obj["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"]
            continue
        (owner,) = obj["metadata"]["ownerReferences"]
        assert owner["controller"] is True
        assert owner["blockOwnerDeletion"] is True
        expected_kind = (
            "DynamoGraphDeployment"
            if obj["kind"] == "DynamoComponentDeployment"
            else "DynamoComponentDeployment"
        )
        assert owner["kind"] == expected_kind


def _shared(objects: list[dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {
        (obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"]): obj
        for obj in objects
        if obj["kind"] in SHARED
    }


def test_each_namespace_has_one_discovery_account_owned_by_no_graph_first() -> None:
    frontend = {"Frontend": {"componentType": "frontend"}}
    second = {**_graph(frontend), "metadata": {"name": "h"}}
    other = {**_graph(frontend), "metadata": {"name": "g", "namespace": "other"}}

    objects = render_objects([_graph(frontend), second, other], OperatorSettings()).objects

    shared = _shared(objects)
    assert [obj["kind"] for obj in objects[:3]] == ["ServiceAccount", "Role", "RoleBinding"]
    assert sorted(shared) == sorted(
        (kind, namespace, f"dynamo-k8s-discovery{suffix}")
        for kind, suffix in (("Role", "-role"), ("RoleBinding", "-binding"), ("ServiceAccount", ""))
        for namespace in ("default", "other")
    )
    account = shared["ServiceAccount", "default", "dynamo-k8s-discovery"]
    assert "ownerReferences" not in account["metadata"]
    binding = shared["RoleBinding", "other", "dynamo-k8s-discovery-binding"]
    assert binding["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "ServiceAccount", "name": "dynamo-k8s-discovery"}
    ]
    assert binding["roleRef"]["name"] == "dynamo-k8s-discovery-role"
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "dynamo-k8s-discovery", "namespace": "other"}
    ]
    pods = {
        (o["metadata"]["namespace"], o["metadata"]["name"]): o["spec"]["template"]["spec"]
        for o in objects
        if o["kind"] == "Deployment"
    }
    assert {key: pod["serviceAccountName"] for key, pod in pods.items()} == {
        ("default", "g-frontend"): "dynamo-k8s-discovery",
        ("default", "h-frontend"): "dynamo-k8s-discovery",
        ("other", "g-frontend"): "dynamo-k8s-discovery",
    }


def test_with_a_discovery_cluster_role_the_account_is_bound_to_it_without_a_role() -> None:
    graph = _graph({"Frontend": {"componentType": "frontend"}})
    settings = OperatorSettings(discovery_cluster_role_name="dynamo-k8s-service-discovery")

    objects = render_objects([graph], settings).objects

    assert [obj["kind"] for obj in objects[:2]] == ["ServiceAccount", "RoleBinding"]
    assert "Role" not in {obj["kind"] for obj in objects}
    binding = objects[1]
    assert binding["metadata"]["name"] == "dynamo-k8s-discovery-binding"
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "dynamo-k8s-service-discovery",
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "dynamo-k8s-discovery", "namespace": "default"}
    ]
    assert binding["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "ServiceAccount", "name": "dynamo-k8s-discovery"}
    ]


def test_with_etcd_discovery_no_account_is_rendered() -> None:
    graph = _graph({"Frontend": {"componentType": "frontend"}})

    objects = render_objects([graph], OperatorSettings(etcd_addr="http://etcd:2379")).objects

    assert _shared(objects) == {}


def test_a_graph_or_service_choosing_its_discovery_backend_overrides_the_operator() -> None:
    """Upstream's GetDiscoveryBackend: the component's annotation (the service's, else its
    graph's) over the operator's choice; it decides the pod's env and account, the Service's
    labels and whether the namespace's discovery account is rendered."""
    annotation = "nvidia.com/dynamo-discovery-backend"
    services = {
        "Frontend": {"componentType": "frontend", "annotations": {annotation: "kubernetes"}},
        "Worker": {"componentType": "worker"},
    }
    etcd_graph = _graph(services)
    etcd_graph["metadata"]["annotations"] = {annotation: "etcd"}

    for graph, settings in (
        (_graph(services), OperatorSettings(etcd_addr="http://etcd:2379")),
        (etcd_graph, OperatorSettings()),
    ):
        objects = render_objects([graph], settings).objects
        pods = {
            o["metadata"]["name"]: o["spec"]["template"]["spec"]
            for o in objects
            if o["kind"] == "Deployment"
        }
        env = {
            name: {e["name"]: e.get("value") for e in pod["containers"][-1]["env"]}
            for name, pod in pods.items()
        }
        assert env["g-frontend"]["DYN_DISCOVERY_BACKEND"] == "kubernetes"
        assert "DYN_DISCOVERY_BACKEND" not in env["g-worker"]
        assert pods["g-frontend"]["serviceAccountName"] == "dynamo-k8s-discovery"
        assert "serviceAccountName" not in pods["g-worker"]
        labels = {
            o["metadata"]["name"]: o["metadata"]["labels"]
            for o in objects
            if o["kind"] == "Service"
        }
        assert labels["g-frontend"][annotation] == "kubernetes"
        assert annotation not in labels["g-worker"]
        assert ("ServiceAccount", "default", "dynamo-k8s-discovery") in _shared(objects)


def test_a_planner_gets_its_account_and_the_binding_to_the_given_role() -> None:
    graph = _graph({"Planner": {"componentType": "planner"}})

    without_role = _shared(render_objects([graph], OperatorSettings()).objects)
    with_role = _shared(
        render_objects([graph], OperatorSettings(), planner_cluster_role_name="planner").objects
    )

    assert ("ServiceAccount", "default", "planner-serviceaccount") in without_role
    assert ("RoleBinding", "default", "planner-serviceaccount") not in without_role
    binding = with_role["RoleBinding", "default", "planner-serviceaccount"]
    assert binding["roleRef"]["name"] == "planner"


def test_unknown_kind_is_a_render_error_naming_the_document() -> None:
    with pytest.raises(RenderError, match=r"document 2 \(ConfigMap cm\)"):
        render_objects(
            [_graph({}), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}],
            OperatorSettings(),
        )


def test_invalid_field_is_a_render_error_naming_the_field() -> None:
    bad = _graph({"Worker": {"replicas": -1}})
    with pytest.raises(RenderError, match=r"spec\.services\.Worker\.replicas"):
        render_objects([bad], OperatorSettings())


def test_missing_mount_point_is_a_render_error_naming_the_field() -> None:
    bad = _graph(
        {"Worker": {"componentType": "worker", "volumeMounts": [{"name": "data"}]}},
        pvcs=[{"name": "data"}],
    )
    with pytest.raises(RenderError, match=r"spec\.volumeMounts\[0\]\.mountPoint"):
        render_objects([bad], OperatorSettings())
