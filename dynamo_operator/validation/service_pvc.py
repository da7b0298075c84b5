"""Rules for a service's own claim (``services.<name>.pvc``, seed 000's form).

It is expanded into a mount and, unless ``spec.pvcs`` declares the claim, a created claim
(``dynamo_operator.image_build.service_pvcs``): so the name must be a PVC name, the mount path
absolute and not already mounted, and a claim to create needs a size.
"""

from __future__ import annotations

from collections.abc import Collection

from dynamo_operator.api import DynamoComponentDeploymentSharedSpec
from dynamo_operator.field_paths import join_path
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.names import check_pvc_name
from dynamo_operator.validation.result import IssueReason
from dynamo_operator.validation.shapes import positive_quantity


def check_service_pvc(
    service: DynamoComponentDeploymentSharedSpec,
    path: str,
    declared_pvcs: Collection[str],
    issues: IssueCollector,
) -> None:
    claim = service.pvc
    if claim is None:
        return
    base = join_path(path, "pvc")
    check_pvc_name(issues, join_path(base, "name"), claim.name)
    if not claim.mount_path.startswith("/"):
        issues.error(join_path(base, "mountPath"), f"'{claim.mount_path}' must be an absolute path")
    for mount in service.volume_mounts or ():
        if mount.name == claim.name or mount.mount_point == claim.mount_path:
            issues.error(base, f"mounts '{claim.name}' at {claim.mount_path} again (volumeMounts)")
    if claim.size is not None:
        positive_quantity(claim.size, join_path(base, "size"), issues)
    elif claim.name not in declared_pvcs:
        issues.error(
            join_path(base, "size"),
            f"required to create claim '{claim.name}' (or declare it in spec.pvcs)",
            IssueReason.MISSING_REQUIRED_FIELD,
        )


def check_no_service_pvc(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    """A standalone component deployment has no graph to create the claim for it."""
    if service.pvc is not None:
        issues.error(
            join_path(path, "pvc"),
            "only a graph's services can declare a pvc; mount an existing claim with volumeMounts",
        )
