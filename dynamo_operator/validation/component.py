"""Rules for DynamoComponent, and for the artifact reference a graph or DCD names.

The component's name is a label value on its builder Jobs and pods, so it must be a DNS-1123
label; the reference must be ``name:version`` (the tag ``dynamo build --push`` printed); the build
timeout a positive Go duration; the extra pod spec may not take the builder's containers,
volumes or restart policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import DynamoComponent
from dynamo_operator.constants import IMAGE_BUILDER_OWNED_POD_FIELDS
from dynamo_operator.durations import InvalidDurationError, positive_duration
from dynamo_operator.errors import InvalidComponentReferenceError
from dynamo_operator.field_paths import join_path
from dynamo_operator.naming import is_dns1123_label, parse_component_reference
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.result import IssueReason


def check_component_reference(issues: IssueCollector, path: str, value: str) -> bool:
    """``value`` is ``name:version``; False (and an error at ``path``) otherwise."""
    try:
        parse_component_reference(value)
    except InvalidComponentReferenceError as error:
        issues.error(path, str(error))
        return False
    return True


def check_component_resource_name(issues: IssueCollector, path: str, name: str) -> None:
    if not is_dns1123_label(name):
        issues.error(
            path,
            f"'{name}' must be a DNS-1123 label (lowercase alphanumerics and '-', at most 63 "
            "characters): it labels the image builder's Job and pods",
            IssueReason.INVALID_NAME,
        )


def validate_dynamo_component(component: DynamoComponent, issues: IssueCollector) -> None:
    spec = component.spec
    check_component_reference(issues, "spec.dynamoComponent", spec.dynamo_component)
    if component.metadata.name:
        check_component_resource_name(issues, "metadata.name", component.metadata.name)
    if spec.image is not None and not spec.image.strip():
        issues.error("spec.image", "must not be empty when set")
    if spec.download_url is not None and not spec.download_url.startswith(("http://", "https://")):
        issues.error("spec.downloadUrl", f"'{spec.download_url}' must be an http(s):// URL")
    if spec.image_build_timeout is not None:
        try:
            positive_duration(spec.image_build_timeout)
        except InvalidDurationError as error:
            issues.error("spec.imageBuildTimeout", str(error))
    for index, argument in enumerate(spec.build_args or ()):
        if not argument or argument.startswith("="):
            issues.error(
                join_path("spec.buildArgs", index), "must be KEY=VALUE (or KEY) with a KEY"
            )
    for field in sorted(
        IMAGE_BUILDER_OWNED_POD_FIELDS & set(spec.image_builder_extra_pod_spec or {})
    ):
        issues.error(
            join_path("spec.imageBuilderExtraPodSpec", field),
            "is set by the operator for the image builder pod and cannot be given",
        )


def validate_dynamo_component_update(
    new: Mapping[str, Any], old: Mapping[str, Any], issues: IssueCollector
) -> None:
    """No rule between versions: a changed spec builds again (the Job's hash changes)."""
