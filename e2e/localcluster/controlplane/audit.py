"""An opt-in API-server audit log (``LocalCluster.create(..., audit=True)``): every request a
ServiceAccount makes, at Metadata level (who, verb, resource, subresource, namespace, name,
response code, the authorizer's decision), as JSON lines in ``<workdir>/audit.log``.

Only ServiceAccounts are logged, and no request bodies, so the log stays small and the apiserver
barely slows down; ``e2e/install/test_rbac_audit.py`` derives the permissions an operator
really uses from it. Off by default: the session cluster of the e2e suite runs without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

AUDIT_LOG = "audit.log"
AUDIT_POLICY = "audit-policy.yaml"

_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    # One event when a request is answered (and one when a watch starts): enough to see every
    # request and its code.
    "omitStages": ["RequestReceived"],
    "rules": [
        {"level": "Metadata", "userGroups": ["system:serviceaccounts"]},
        {"level": "None"},
    ],
}


def apiserver_audit_flags(workdir: Path) -> list[str]:
    """Write the policy into ``workdir`` and return the apiserver flags that use it."""
    policy = workdir / AUDIT_POLICY
    policy.write_text(json.dumps(_POLICY, indent=2))  # JSON is YAML
    return [
        f"--audit-policy-file={policy}",
        f"--audit-log-path={workdir / AUDIT_LOG}",
        "--audit-log-format=json",
        "--audit-log-mode=blocking",  # written before the response: a test reads it at once
        "--audit-log-maxbackup=0",
    ]


def read_audit_events(path: Path) -> list[dict[str, Any]]:
    """Every event of the log so far (a partly written last line is left for the next read)."""
    if not path.exists():
        return []
    events = []
    for line in path.read_text(errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events


def verbs_needed(verb: str, code: int) -> list[str]:
    """The RBAC verbs a request answered with ``code`` needed: a server-side apply that created
    its object (PATCH answered 201) needed ``create`` as well as ``patch``."""
    return [verb, "create"] if verb == "patch" and code == 201 else [verb]
