"""Names of the objects a graph or component will generate must be acceptable to the API server.

A DCD is named ``<graph>-<lowercase service>`` and its Deployment and Service reuse that name, so
it must be a DNS-1123 label (a Service name is one). Multinode components add LeaderWorkerSets
``<dcd>-<replica>`` whose pods are ``<lws>-0`` and ``<lws>-0-<worker>``; pod hostnames are labels
too. The Dynamo namespace is published as a label value. Catching these here turns a failure deep
in a reconcile into an admission error naming the field.
"""

from __future__ import annotations

import re

from dynamo_operator.naming import (
    DNS1123_LABEL_MAX_LENGTH,
    is_dns1123_label,
    is_dns1123_subdomain,
    leader_worker_set_name,
)
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.result import IssueReason

_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_LABEL_VALUE_MAX_LENGTH = 63


def is_label_value(value: str) -> bool:
    return len(value) <= _LABEL_VALUE_MAX_LENGTH and bool(_LABEL_VALUE.match(value))


def check_component_names(
    issues: IssueCollector, path: str, component_name: str, replicas: int, node_count: int
) -> None:
    """The DCD/Deployment/Service name and, when multinode, the LeaderWorkerSet pod names."""
    if not is_dns1123_label(component_name):
        issues.error(
            path, _label_message("generated name", component_name), IssueReason.INVALID_NAME
        )
        return
    if node_count < 2:
        return
    last_set = leader_worker_set_name(component_name, max(replicas - 1, 0))
    last_pod = f"{last_set}-0-{node_count - 1}"
    if not is_dns1123_label(last_pod):
        issues.error(
            path,
            _label_message("generated multinode pod name", last_pod)
            + "; shorten the graph or service name",
            IssueReason.INVALID_NAME,
        )


def check_pvc_name(issues: IssueCollector, path: str, name: str) -> None:
    if not is_dns1123_subdomain(name):
        issues.error(
            path,
            f"'{name}' is not a valid PVC name (DNS-1123 subdomain: lowercase alphanumerics, "
            "'-' and '.', at most 253 characters)",
            IssueReason.INVALID_NAME,
        )


def check_dynamo_namespace(
    issues: IssueCollector, path: str, value: str, *, declared: bool
) -> None:
    if is_label_value(value):
        return
    origin = "" if declared else " (derived as <namespace>-<graph name>; set dynamoNamespace)"
    issues.error(
        path,
        f"Dynamo namespace '{value}' is not a valid label value (alphanumerics, '-', '_', '.', "
        f"at most {_LABEL_VALUE_MAX_LENGTH} characters){origin}",
        IssueReason.INVALID_NAME,
    )


def _label_message(what: str, name: str) -> str:
    if len(name) > DNS1123_LABEL_MAX_LENGTH:
        return (
            f"{what} '{name}' is {len(name)} characters; at most {DNS1123_LABEL_MAX_LENGTH} allowed"
        )
    return (
        f"{what} '{name}' is not a valid DNS-1123 label (lowercase alphanumerics and '-', "
        "starting and ending with an alphanumeric)"
    )
