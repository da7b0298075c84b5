"""The free-form parts of a service, checked as the API server will check the pod they become.

``extraPodSpec`` (a partial PodSpec), its ``mainContainer`` (a partial Container) and the
top-level probes are kept as raw JSON, so the schema cannot refuse ``env: "A=1"`` or
``command: "python -m ..."``. The builders merge them into the Deployment, and there they would
either crash ``render`` and the reconciler or be refused by the API server much later, out of the
user's sight. These rules refuse them at admission, naming the field: the shapes the builders
rely on (lists where Kubernetes has lists, objects with their key fields) and the values the API
server and the kubelet refuse (environment variable names, ports, probe timings, quantities).
Fields not named here are left to Kubernetes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_operator.api import DynamoComponentDeploymentSharedSpec
from dynamo_operator.field_paths import join_path
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.quantities import resource_name_problem
from dynamo_operator.validation.result import IssueReason
from dynamo_operator.validation.shapes import (
    Check,
    any_object,
    boolean,
    fields,
    integer,
    list_of,
    map_of,
    port_or_name,
    quantity,
    string,
)

INT64_MAX = 2**63 - 1


def env_var_name(value: Any, path: str, issues: IssueCollector) -> None:
    """The API server's rule: printable ASCII other than '=', not empty."""
    string(value, path, issues)
    if not isinstance(value, str):
        return
    if not value:
        issues.error(path, "an environment variable name must not be empty")
    elif any(not " " <= character <= "~" or character == "=" for character in value):
        issues.error(
            path,
            f"{value[:40]!r} is not a valid environment variable name (printable ASCII "
            "characters other than '=')",
            IssueReason.INVALID_NAME,
        )


def resource_amounts(value: Any, path: str, issues: IssueCollector) -> None:
    """``requests`` or ``limits``: resource name -> non-negative quantity (whole if extended)."""
    if not isinstance(value, dict):
        any_object(value, path, issues)
        return
    for name, amount in value.items():
        amount_path = join_path(path, str(name))
        problem = resource_name_problem(str(name))
        if problem is not None:
            issues.error(amount_path, problem, IssueReason.INVALID_NAME)
        quantity(whole="/" in str(name) and "kubernetes.io/" not in str(name))(
            amount, amount_path, issues
        )


_SECONDS = integer(0)
_HANDLER_TIMINGS: dict[str, Check] = {
    "initialDelaySeconds": _SECONDS,
    "periodSeconds": integer(1),
    "timeoutSeconds": integer(1),
    "successThreshold": integer(1),
    "failureThreshold": integer(1),
    "terminationGracePeriodSeconds": integer(1, INT64_MAX),
}
PROBE = fields(
    exec=fields(command=list_of(string)),
    httpGet=fields(
        "port",
        path=string,
        port=port_or_name,
        host=string,
        scheme=string,
        httpHeaders=list_of(fields("name", name=string, value=string)),
    ),
    tcpSocket=fields("port", port=port_or_name, host=string),
    grpc=fields("port", port=integer(1, 65535), service=string),
    **_HANDLER_TIMINGS,
)

_ENV_VAR = fields("name", name=env_var_name, value=string, valueFrom=any_object)
_CONTAINER_FIELDS: dict[str, Check] = {
    "name": string,
    "image": string,
    "imagePullPolicy": string,
    "command": list_of(string),
    "args": list_of(string),
    "workingDir": string,
    "env": list_of(_ENV_VAR),
    "envFrom": list_of(any_object),
    "ports": list_of(
        fields(
            "containerPort",
            containerPort=integer(1, 65535),
            hostPort=integer(1, 65535),
            name=string,
            protocol=string,
            hostIP=string,
        )
    ),
    "volumeMounts": list_of(
        fields("name", "mountPath", name=string, mountPath=string, readOnly=boolean)
    ),
    "resources": fields(
        requests=resource_amounts,
        limits=resource_amounts,
        claims=list_of(fields("name", name=string, request=string)),
    ),
    "livenessProbe": PROBE,
    "readinessProbe": PROBE,
    "startupProbe": PROBE,
    "lifecycle": any_object,
    "securityContext": any_object,
    "stdin": boolean,
    "tty": boolean,
}
MAIN_CONTAINER = fields(**_CONTAINER_FIELDS)
CONTAINER = fields("name", **_CONTAINER_FIELDS)
POD_SPEC_OVERRIDES = fields(
    containers=list_of(CONTAINER),
    initContainers=list_of(CONTAINER),
    volumes=list_of(fields("name", name=string)),
    imagePullSecrets=list_of(fields(name=string)),
    tolerations=list_of(any_object),
    nodeSelector=map_of(string),
    affinity=any_object,
    securityContext=any_object,
    serviceAccountName=string,
    restartPolicy=string,
    schedulerName=string,
    priorityClassName=string,
    runtimeClassName=string,
    terminationGracePeriodSeconds=integer(0, INT64_MAX),
    hostNetwork=boolean,
    hostIPC=boolean,
    hostPID=boolean,
)


def check_pod_overrides(
    service: DynamoComponentDeploymentSharedSpec, path: str, issues: IssueCollector
) -> None:
    """``envs`` names, ``extraPodSpec`` (with ``mainContainer``) and the top-level probes."""
    for index, env in enumerate(service.envs or ()):
        env_var_name(env.name, join_path(path, "envs", index, "name"), issues)
    extra = service.extra_pod_spec
    if extra is not None:
        extra_path = join_path(path, "extraPodSpec")
        POD_SPEC_OVERRIDES(extra.pod_spec_overrides(), extra_path, issues)
        if extra.main_container is not None:
            MAIN_CONTAINER(extra.main_container, join_path(extra_path, "mainContainer"), issues)
    for name, probe in (
        ("livenessProbe", service.liveness_probe),
        ("readinessProbe", service.readiness_probe),
    ):
        if probe is not None:
            PROBE(probe, join_path(path, name), issues)


def main_container_of(service: DynamoComponentDeploymentSharedSpec) -> Mapping[str, Any]:
    extra = service.extra_pod_spec
    container = extra.main_container if extra is not None else None
    return container if isinstance(container, Mapping) else {}
