"""Names of the objects a graph or component will generate must be acceptable to the API server.

A DCD is named ``<graph>-<lowercase service>`` and its Deployment and Service reuse that name, so
it must be a DNS-1123 label (a Service name is one). Multinode components add LeaderWorkerSets
``<dcd>-<replica>`` whose pods are ``<lws>-0`` and ``<lws>-0-<worker>``; pod hostnames are labels
too. The Dynamo namespace is published as a label value. Catching these here turns a failure deep
in a reconcile into an admission error naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from dynamo_operator.field_paths import join_path
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


def deprecated_dynamo_namespace(value: str, derived: str) -> str:
    """The warning on a declared ``dynamoNamespace``: still honoured here, ignored upstream."""
    return (
        f"deprecated: the components run in Dynamo namespace '{value}' as written, but upstream's "
        f"operator ignores this field and uses <namespace>-<graph> ('{derived}'); graphs of one "
        "namespace that share a Dynamo namespace share discovery (each one's frontends route to "
        "the other's workers). Remove it to give the graph its own"
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


_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_QUALIFIED_NAME_MAX_LENGTH = 63
_ANNOTATIONS_MAX_BYTES = 256 * 1024


def qualified_name_problem(key: str) -> str | None:
    """Why ``key`` cannot be a label or annotation key (``[prefix/]name``), or None."""
    prefix, slash, name = key.rpartition("/")
    if slash and not (prefix and is_dns1123_subdomain(prefix)):
        return f"key '{key[:80]}' has an invalid prefix (must be a DNS subdomain, e.g. example.com)"
    if not (len(name) <= _QUALIFIED_NAME_MAX_LENGTH and _QUALIFIED_NAME.match(name)):
        return (
            f"key '{key[:80]}' is not a valid name (alphanumerics, '-', '_' or '.', at most "
            f"{_QUALIFIED_NAME_MAX_LENGTH} characters, starting and ending with an alphanumeric, "
            "optionally after a DNS subdomain prefix and '/')"
        )
    return None


def check_labels(issues: IssueCollector, path: str, labels: Mapping[str, str] | None) -> None:
    """Keys and values as the API server checks the labels of the objects they end up on."""
    for key, value in (labels or {}).items():
        problem = qualified_name_problem(key)
        if problem is not None:
            issues.error(join_path(path, key), problem, IssueReason.INVALID_NAME)
        elif not is_label_value(value):
            issues.error(
                join_path(path, key),
                f"'{value[:80]}' is not a valid label value (alphanumerics, '-', '_' or '.', at "
                f"most {_LABEL_VALUE_MAX_LENGTH} characters, starting and ending with an "
                "alphanumeric)",
                IssueReason.INVALID_NAME,
            )


def check_annotations(
    issues: IssueCollector, path: str, annotations: Mapping[str, str] | None
) -> None:
    total = 0
    for key, value in (annotations or {}).items():
        problem = qualified_name_problem(key)
        if problem is not None:
            issues.error(join_path(path, key), problem, IssueReason.INVALID_NAME)
        total += len(key.encode()) + len(value.encode())
    if total > _ANNOTATIONS_MAX_BYTES:
        issues.error(path, f"annotations total {total} bytes; at most {_ANNOTATIONS_MAX_BYTES}")
