"""Annotation values the operator acts on, checked at admission.

The rollout annotations (``rollout_strategy``): a value the Deployment cannot take is refused
here, naming the annotation where the user wrote it (``extraPodMetadata.annotations`` wins over
the service's ``annotations``, as in the builder), instead of a Deployment write that keeps
failing in the reconciler. The discovery backend (``builders/discovery.py``), on a graph or a
service: ``kubernetes`` or ``etcd`` (empty: the operator's choice); upstream takes any word and
treats all but ``etcd`` as Kubernetes discovery for the env and as etcd for the rest.
"""

from __future__ import annotations

from collections.abc import Mapping

from dynamo_operator.api import DynamoComponentDeploymentSharedSpec
from dynamo_operator.constants import Annotations
from dynamo_operator.field_paths import join_path
from dynamo_operator.rollout_strategy import rollout_annotations, rollout_problems
from dynamo_operator.validation.collector import IssueCollector


def check_rollout_annotations(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    pod_metadata = service.extra_pod_metadata
    pod_annotations = (pod_metadata.annotations if pod_metadata is not None else None) or {}
    annotations = rollout_annotations(service.annotations, pod_annotations)
    for problem in rollout_problems(annotations):
        section = (
            ("extraPodMetadata", "annotations")
            if problem.annotation in pod_annotations
            else ("annotations",)
        )
        where = join_path(path, *section, problem.annotation)
        if problem.warning:
            issues.warn(where, problem.message)
        else:
            issues.error(where, problem.message)


def check_discovery_backend(
    annotations: Mapping[str, str] | None, path: str, issues: IssueCollector
) -> None:
    """``path`` is where ``annotations`` are (``metadata.annotations``, a service's
    ``annotations``)."""
    value = (annotations or {}).get(Annotations.DISCOVERY_BACKEND)
    if value not in (None, "", "kubernetes", "etcd"):
        issues.error(
            join_path(path, Annotations.DISCOVERY_BACKEND),
            f"'{value}' is not a discovery backend: kubernetes (through the API server) or etcd "
            "(through the operator's --etcdAddr); leave it out for the operator's choice",
        )
