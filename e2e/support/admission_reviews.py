"""AdmissionReview requests as the API server sends them to a validating webhook, for the webhook
tests, benchmarks and fuzzing (one builder: the unit tests, the cert-manager e2e test,
``bench/webhook.py`` and ``bench/fuzz.py`` share it)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

GROUP = "nvidia.com"
VERSION = "v1alpha1"


def admission_review(
    obj: Mapping[str, Any] | None,
    *,
    operation: str = "CREATE",
    old: Mapping[str, Any] | None = None,
    kind: str | None = None,
    uid: str | None = None,
    name: str = "demo",
    namespace: str = "default",
    user: str = "alice",
) -> dict[str, Any]:
    """An ``admission.k8s.io/v1`` AdmissionReview for ``obj`` (``old`` on updates and deletes);
    ``kind`` defaults to the object's, the resource is its lower-case plural."""
    kind = kind or (obj or old or {}).get("kind") or "DynamoGraphDeployment"
    request: dict[str, Any] = {
        "uid": uid or str(uuid.uuid4()),
        "kind": {"group": GROUP, "version": VERSION, "kind": kind},
        "resource": {"group": GROUP, "version": VERSION, "resource": f"{kind.lower()}s"},
        "operation": operation,
        "name": name,
        "namespace": namespace,
        "userInfo": {"username": user, "groups": ["system:authenticated"]},
        "object": obj,
        "oldObject": old,
        "dryRun": False,
    }
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}
