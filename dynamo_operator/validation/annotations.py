"""Annotation values the operator acts on, checked at admission.

Only the rollout annotations so far (``rollout_strategy``): a value the Deployment cannot take is
refused here, naming the annotation where the user wrote it (``extraPodMetadata.annotations``
wins over the service's ``annotations``, as in the builder), instead of a Deployment write that
keeps failing in the reconciler.
"""

from __future__ import annotations

from dynamo_operator.api import DynamoComponentDeploymentSharedSpec
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
