"""Rules of the v1beta1 shape itself, on the object as the user wrote it, with v1beta1 paths.

What both versions can say is checked once, by the v1alpha1 rules on the converted object
(``beta``); here only what v1beta1 alone can get wrong: no component at all, components whose
names collide ignoring case (children are named after the lowercased name), more than one
endpoint picker, and a pod template without the container named ``main`` (the one Dynamo runs
in) or without its image. The CRD states the name and epp rules in CEL too; the CLI checks a file
before any API server does, and admission must agree with it.

On update the rules keep parity with v1alpha1's (``graph_deployment``/``component_deployment``):
the backend is immutable, a component may not switch between single-node and multinode; plus
v1beta1's own: a component's ``type`` is immutable once set. Update rules read the wire form so an
old object stored before a rule existed cannot block every later update.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from dynamo_operator.api import v1beta1
from dynamo_operator.api.constants import BetaComponentType
from dynamo_operator.constants import MAIN_CONTAINER_NAME
from dynamo_operator.field_paths import describe, join_path
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.result import IssueReason
from dynamo_operator.validation.wire import differs, node_count_of, spec_of

COMPONENTS = "spec.components"
MISSING_MAIN = f"must have a container named {MAIN_CONTAINER_NAME} with an image"


def validate_beta_graph_deployment(
    graph: v1beta1.DynamoGraphDeployment,
    wire: Mapping[str, Any],
    issues: IssueCollector,
    *,
    image_from_artifact: bool = False,
) -> None:
    """``wire`` is the object as written (its free-form pod templates are read from it);
    ``image_from_artifact``: a DynamoComponent artifact supplies the components and their
    image."""
    components = graph.spec.components
    if image_from_artifact:
        # The artifact (v1alpha1's dynamoComponent, carried in an annotation) brings the
        # components and their image; spec.components only overrides them.
        _check_unique_names(components, issues)
        _check_one_epp(components, issues)
        return
    if not components:
        issues.error(COMPONENTS, "must have at least one component")
    _check_unique_names(components, issues)
    _check_one_epp(components, issues)
    for index, component in enumerate(_wire_components(wire)):
        check_main_container(component, join_path(COMPONENTS, index), issues)


def validate_beta_component_deployment(
    wire: Mapping[str, Any], issues: IssueCollector, *, image_from_artifact: bool = False
) -> None:
    if not image_from_artifact:
        check_main_container(spec_of(wire), "spec", issues)


def check_main_container(component: Mapping[str, Any], path: str, issues: IssueCollector) -> None:
    """The container named main exists in ``podTemplate.spec.containers`` and has an image."""
    containers_path = join_path(path, "podTemplate", "spec", "containers")
    for index, container in enumerate(_containers(component)):
        if container.get("name") != MAIN_CONTAINER_NAME:
            continue
        image = container.get("image")
        if not isinstance(image, str) or not image.strip():
            issues.error(
                join_path(containers_path, index, "image"),
                f"must be set: the {MAIN_CONTAINER_NAME} container runs Dynamo "
                f"(got {describe(image)})",
            )
        return
    issues.error(containers_path, MISSING_MAIN)


def validate_beta_graph_deployment_update(
    new: Mapping[str, Any], old: Mapping[str, Any], issues: IssueCollector
) -> None:
    _check_backend_unchanged(new, old, issues)
    old_by_name = {
        component.get("name"): component
        for component in _wire_components(old)
        if isinstance(component.get("name"), str)
    }
    for index, component in enumerate(_wire_components(new)):
        previous = old_by_name.get(component.get("name"))
        if previous is None:
            continue
        path = join_path(COMPONENTS, index)
        _check_type_unchanged(component, previous, path, issues)
        _check_topology_unchanged(component, previous, path, issues)


def validate_beta_component_deployment_update(
    new: Mapping[str, Any], old: Mapping[str, Any], issues: IssueCollector
) -> None:
    _check_backend_unchanged(new, old, issues)
    _check_type_unchanged(spec_of(new), spec_of(old), "spec", issues)


def _check_unique_names(components: Sequence[v1beta1.Component], issues: IssueCollector) -> None:
    first_by_folded_name: dict[str, int] = {}
    for index, component in enumerate(components):
        folded = component.name.lower()
        first = first_by_folded_name.setdefault(folded, index)
        if first != index:
            issues.error(
                join_path(COMPONENTS, index, "name"),
                f"duplicate component name {component.name!r}: "
                f"{join_path(COMPONENTS, first)} is {components[first].name!r} "
                "(component names are compared ignoring case)",
                IssueReason.INVALID_NAME,
            )


def _check_one_epp(components: Sequence[v1beta1.Component], issues: IssueCollector) -> None:
    epps = [i for i, component in enumerate(components) if component.type is BetaComponentType.EPP]
    for index in epps[1:]:
        issues.error(
            join_path(COMPONENTS, index, "type"),
            f"at most one component may have type epp ({join_path(COMPONENTS, epps[0])} has it)",
        )


def _check_backend_unchanged(
    new: Mapping[str, Any], old: Mapping[str, Any], issues: IssueCollector
) -> None:
    before, after = spec_of(old).get("backendFramework"), spec_of(new).get("backendFramework")
    if differs(before, after):
        issues.error(
            "spec.backendFramework",
            f"is immutable (was {describe(before)}, now {describe(after)})",
            IssueReason.IMMUTABLE_FIELD_CHANGED,
        )


def _check_type_unchanged(
    new: Mapping[str, Any], old: Mapping[str, Any], path: str, issues: IssueCollector
) -> None:
    before, after = old.get("type"), new.get("type")
    if before is not None and differs(before, after):
        issues.error(
            join_path(path, "type"),
            f"is immutable once set (was {describe(before)}, now {describe(after)})",
            IssueReason.IMMUTABLE_FIELD_CHANGED,
        )


def _check_topology_unchanged(
    new: Mapping[str, Any], old: Mapping[str, Any], path: str, issues: IssueCollector
) -> None:
    was_multinode = node_count_of(old) > 1
    if was_multinode != (node_count_of(new) > 1):
        before, after = (
            ("multinode", "single-node") if was_multinode else ("single-node", "multinode")
        )
        issues.error(
            join_path(path, "multinode"),
            f"cannot change node topology from {before} to {after} after creation; "
            "delete and recreate the component",
            IssueReason.IMMUTABLE_FIELD_CHANGED,
        )


def _wire_components(obj: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The components of a wire DGD, each as a mapping (anything else reads as empty)."""
    components = spec_of(obj).get("components")
    if not isinstance(components, list):
        return
    for component in components:
        yield component if isinstance(component, Mapping) else {}


def _containers(component: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    template = component.get("podTemplate")
    spec = template.get("spec") if isinstance(template, Mapping) else None
    containers = spec.get("containers") if isinstance(spec, Mapping) else None
    if not isinstance(containers, list):
        return
    for container in containers:
        yield container if isinstance(container, Mapping) else {}
