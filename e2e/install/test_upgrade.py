"""`helm upgrade` from the previous release: the graphs a user already runs keep running untouched.

The previous release (``e2e/support/previous_release.py``: one CRD version, no conversion webhook)
is installed from its own charts with its own image, built from this repository's history, and
runs the graphs a user of it had (its own sample, and a small graph). Then both charts are upgraded
as the README says, to this tree's charts and image. The new operator adopts every child the old
one made: a child whose rendered contract is the same in both releases gets no write to its spec
or metadata (a component's status still follows pods that a changed Deployment rolls; running
pods keep the account of one graph the old release gave them, where the new one gives a new
graph its namespace's account); one whose contract changed is updated in place (same uid), never
recreated; the graphs stay successful and are readable at ``nvidia.com/v1beta1``, which the old
CRDs did not serve; a rollout strategy the old release ignored takes effect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dynamo_operator.constants import DISCOVERY_ACCOUNT_NAME, DISCOVERY_ACCOUNT_SUFFIX
from e2e.support.chart import CRD_CHART, OPERATOR_CHART
from e2e.support.graphs import is_converged, load_graph, persistent_volume, small_graph
from e2e.support.helm_install import (
    RELEASE,
    SYSTEM,
    WORKLOAD_KINDS,
    admission_works,
    install,
)
from e2e.support.kinds import GRAPH, GRAPH_BETA
from e2e.support.previous_release import (
    PREVIOUS_TAG,
    previous_image,
    previous_tree,
    render,
)
from e2e.support.real_node import RealNodeCluster

pytestmark = [pytest.mark.e2e, pytest.mark.local_control_plane]

RECREATE_ANNOTATION = "nvidia.com/deployment-strategy"

# The resource (as in `Installed.workloads`' keys) of each kind `render` returns that it reads.
_RESOURCES = {kind.kind: kind.plural for kind in WORKLOAD_KINDS}


def test_an_upgrade_from_the_previous_release_writes_only_what_the_new_contract_changes(
    real_node: RealNodeCluster, operator_image_tar: Path
) -> None:
    previous = previous_tree()
    installed = install(
        real_node,
        previous_image(),
        charts=(
            previous / "deploy" / "helm" / "dynamo-operator-crds",
            previous / "deploy" / "helm" / "dynamo-operator",
        ),
        tag=PREVIOUS_TAG,
    )
    namespace = real_node.create_namespace("upgrade")
    small = small_graph("small")
    # Asked for while the previous release ignored it: the Deployment it made has the server's
    # default RollingUpdate, which no apply can remove; the new release must switch it anyway.
    small["spec"]["services"]["VllmWorker"]["annotations"] = {RECREATE_ANNOTATION: "Recreate"}
    graphs = [load_graph(previous / "examples" / "vllm-disagg.yaml"), small]
    # The sample mounts a claim; the cluster has no provisioner, so a volume waits for it.
    installed.admin.create(
        "/api/v1/persistentvolumes",
        persistent_volume(f"{namespace}-model-cache", namespace, "model-cache"),
    )
    for graph in graphs:
        installed.admin.create(GRAPH.collection_path(namespace), graph)
        installed.converged(namespace, graph["metadata"]["name"])
    installed.settled()
    before = installed.workloads(namespace)
    old_operator = installed.ready_operator()

    real_node.import_image(operator_image_tar)
    installed.helm("upgrade", "dynamo-operator-crds", str(CRD_CHART), "--namespace=default")
    current_values = [
        value.replace(f"image.tag={PREVIOUS_TAG}", "image.tag=dev")
        for value in installed.image_values
    ]
    installed.helm(
        "upgrade", RELEASE, str(OPERATOR_CHART), f"--namespace={SYSTEM}", *current_values
    )  # fmt: skip
    new_operator = installed.ready_operator(not_uid=old_operator["metadata"]["uid"])
    assert new_operator["spec"]["containers"][0]["image"] == "localhost/dynamo-operator:dev"
    installed.settled()
    after = installed.workloads(namespace)

    assert after.keys() == before.keys()
    recreated = [key for key in before if _uid(before[key]) != _uid(after[key])]
    assert not recreated, f"recreated by the upgrade: {recreated}"
    # New graphs share their namespace's discovery account; running pods keep their graph's.
    assert _accounts(after) == _accounts(before)
    discovery = {a for a in _accounts(before).values() if a and DISCOVERY_ACCOUNT_SUFFIX in a}
    assert discovery == {f"{g['metadata']['name']}{DISCOVERY_ACCOUNT_SUFFIX}" for g in graphs}
    contract_changed = _contract_changes(previous, graphs, namespace)
    children = [key for key in before if not key.startswith(GRAPH.plural + "/")]
    written = {key for key in children if _intent(before[key]) != _intent(after[key])}
    unexplained = sorted(written - contract_changed)
    assert not unexplained, f"written though both releases render them alike: {unexplained}"
    print(
        f"\nchildren: {len(children)}; contract changed: {sorted(contract_changed)}; "
        f"written: {sorted(written)}"
    )
    for graph in graphs:
        name = graph["metadata"]["name"]
        assert is_converged(installed.converged(namespace, name))
        beta = installed.admin.get(GRAPH_BETA.object_path(namespace, name))
        assert {c["name"] for c in beta["spec"]["components"]} == set(graph["spec"]["services"])
    admission_works(installed, namespace)
    worker = after["deployments/small-vllmworker"]
    assert worker["spec"]["strategy"] == {"type": "Recreate"}


def _contract_changes(previous: Path, graphs: list[dict[str, Any]], namespace: str) -> set[str]:
    """The children whose rendered object differs between the two releases' code, but for the
    discovery account a workload runs as (rendered for a new graph: the running pods keep
    theirs, asserted apart)."""
    old, new = (
        {
            f"{_RESOURCES[obj['kind']]}/{obj['metadata']['name']}": _without_discovery_account(obj)
            for obj in render(tree, graphs, "--namespace", namespace)
            if obj["kind"] in _RESOURCES
        }
        for tree in (previous, Path(__file__).resolve().parents[2])
    )
    return {key for key in old.keys() | new.keys() if old.get(key) != new.get(key)}


def _without_discovery_account(obj: dict[str, Any]) -> dict[str, Any]:
    if obj["kind"] != "Deployment":
        return obj
    pod = obj["spec"]["template"]["spec"]
    account = pod.get("serviceAccountName", "")
    if account == DISCOVERY_ACCOUNT_NAME or account.endswith(DISCOVERY_ACCOUNT_SUFFIX):
        pod = {key: value for key, value in pod.items() if key != "serviceAccountName"}
        template = {**obj["spec"]["template"], "spec": pod}
        return {**obj, "spec": {**obj["spec"], "template": template}}
    return obj


def _accounts(workloads: dict[str, dict[str, Any]]) -> dict[str, str | None]:
    """The account each Deployment's pods run as."""
    return {
        key: obj["spec"]["template"]["spec"].get("serviceAccountName")
        for key, obj in workloads.items()
        if key.startswith("deployments/")
    }


def _uid(obj: dict[str, Any]) -> str:
    return str(obj["metadata"]["uid"])


def _intent(obj: dict[str, Any]) -> tuple[Any, ...]:
    """What a write of the object's spec or metadata changes: its generation, labels and
    annotations when it has a generation (a status write, such as a component's readiness while
    its rolled Deployment comes back, changes none of them), else its resourceVersion."""
    metadata = obj["metadata"]
    if "generation" not in metadata:
        return (metadata["resourceVersion"],)
    return (metadata["generation"], metadata.get("labels"), metadata.get("annotations"))
