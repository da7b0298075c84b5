"""Deterministic names of the objects the operator creates, their pod selector, the Dynamo
namespace, and the ``name:version`` references to built artifacts.

Every name is a pure function of its parent's name, so the operator finds its children again after
a restart without storing anything. The DNS checks let validation reject a graph whose children
would be refused by the API server later.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from dynamo_operator.constants import Labels
from dynamo_operator.errors import InvalidComponentReferenceError

_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)
DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253


def is_dns1123_label(name: str) -> bool:
    """Names of Services (and anything used as a hostname label) must be DNS-1123 labels."""
    return len(name) <= DNS1123_LABEL_MAX_LENGTH and bool(_DNS1123_LABEL.match(name))


def is_dns1123_subdomain(name: str) -> bool:
    """Names of most namespaced objects (Deployments, DCDs, PVCs) must be DNS-1123 subdomains."""
    return len(name) <= DNS1123_SUBDOMAIN_MAX_LENGTH and bool(_DNS1123_SUBDOMAIN.match(name))


def component_deployment_name(graph_name: str, service_name: str) -> str:
    """``<dgd>-<lowercase service>``: the DCD, and after it its Deployment and Service."""
    return f"{graph_name}-{service_name.lower()}"


def component_pod_selector(component_name: str) -> dict[str, str]:
    """Labels selecting exactly one component's pods: ``nvidia.com/selector: <dcd name>``.

    Unique to the component, never its type, so two worker services of one graph never share a
    Service; the workload, the Service and the DCD's ``status.podSelector`` all use it.
    """
    return {Labels.SELECTOR: component_name}


def leader_worker_set_name(component_name: str, instance: int) -> str:
    """One LeaderWorkerSet (and Volcano PodGroup) per replica: ``<dcd>-<replica index>``."""
    return f"{component_name}-{instance}"


def base_model_hash(base_model_name: str) -> str:
    """The first 8 hex digits of the SHA-256 of a base model's name: a label value for any name
    (``Qwen/Qwen3-0.6B`` is not one), shared by the pods, the model Service and its
    EndpointSlices, and the DynamoModels that look them up."""
    return hashlib.sha256(base_model_name.encode()).hexdigest()[:8]


def model_service_name(base_model_name: str) -> str:
    """``dynamo-model-<hash>``: the headless Service of a base model in a namespace."""
    return f"dynamo-model-{base_model_hash(base_model_name)}"


def default_dynamo_namespace(kubernetes_namespace: str, graph_name: str) -> str:
    """``<kubernetes namespace>-<dgd name>``; dots are not allowed in a Dynamo namespace."""
    return f"{kubernetes_namespace}-{graph_name.replace('.', '-')}"


def dynamo_namespace(
    kubernetes_namespace: str, graph_name: str, declared: Iterable[str | None] = ()
) -> str:
    """The Dynamo namespace shared by all services of a graph.

    The first declared ``dynamoNamespace`` (in the caller's order) wins; validation rejects a graph
    whose services disagree, so "first" only matters for input that skipped validation.
    """
    for value in declared:
        if value:
            return value
    return default_dynamo_namespace(kubernetes_namespace, graph_name)


# --- artifacts: ``name:version`` ---------------------------------------------------------------
# ``dynamo build --push`` prints ``frontend:jh2o6dqzpsgfued4``: a lowercase name and version made of
# letters, digits, ``.``, ``_`` and ``-`` (BentoML's tag syntax, which Dynamo's CLI inherited). The
# DynamoComponent a graph creates is named with the colon replaced by ``--``, as upstream did, so a
# graph and a component made by hand for the same artifact agree.

COMPONENT_REFERENCE_PART_MAX_LENGTH = 63
_REFERENCE_PART = re.compile(r"^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$")
COMPONENT_REFERENCE_RULE = (
    "must be name:version, each part lowercase letters, digits, '.', '_' and '-', starting and "
    f"ending with a letter or digit, at most {COMPONENT_REFERENCE_PART_MAX_LENGTH} characters "
    "(e.g. frontend:jh2o6dqzpsgfued4)"
)


@dataclass(frozen=True, slots=True)
class ComponentReference:
    """An artifact in the API store."""

    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.name}:{self.version}"

    @property
    def resource_name(self) -> str:
        """The DynamoComponent's name: ``<name>--<version>``."""
        return f"{self.name}--{self.version}"


def parse_component_reference(text: str) -> ComponentReference:
    """``name:version`` as a reference; InvalidComponentReferenceError saying why otherwise."""
    name, colon, version = text.partition(":")
    if not colon:
        raise InvalidComponentReferenceError(
            f"{text!r} has no ':version'; {COMPONENT_REFERENCE_RULE}"
        )
    for part, value in (("name", name), ("version", version)):
        if not value:
            raise InvalidComponentReferenceError(
                f"{text!r} has an empty {part}; {COMPONENT_REFERENCE_RULE}"
            )
        if len(value) > COMPONENT_REFERENCE_PART_MAX_LENGTH or not _REFERENCE_PART.match(value):
            raise InvalidComponentReferenceError(
                f"{text!r} has an invalid {part} {value!r}; {COMPONENT_REFERENCE_RULE}"
            )
    return ComponentReference(name, version)


def component_resource_name(text: str) -> str:
    """``frontend:jh2o6dqzpsgfued4`` -> ``frontend--jh2o6dqzpsgfued4``, the DynamoComponent a
    graph naming that artifact creates (InvalidComponentReferenceError for a bad reference)."""
    return parse_component_reference(text).resource_name
