"""Which version a reference to one of our kinds names."""

from __future__ import annotations

import re

from dynamo_operator.api import GROUP, reference_api_version
from dynamo_operator.crd.definitions import ALL_RESOURCES


def kube_version_priority(version: str) -> tuple[int, int, int]:
    """Kubernetes' order of versions (GA, then beta, then alpha; higher numbers first): the
    group's preferred version of a kind is the highest it is served at."""
    match = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    assert match, version
    major, stability, minor = match.groups()
    level = {"alpha": 0, "beta": 1, None: 2}[stability]
    return level, int(major), int(minor or 0)


def test_a_reference_names_the_version_the_garbage_collector_watches_the_kind_at() -> None:
    for resource in ALL_RESOURCES:
        served = [version.name for version in resource.versions]
        preferred = max(served, key=kube_version_priority)
        assert reference_api_version(resource.kind) == f"{GROUP}/{preferred}", resource.kind


def test_kinds_served_at_one_version_are_referenced_at_it() -> None:
    assert reference_api_version("DynamoComponent") == f"{GROUP}/v1alpha1"
    assert reference_api_version("DynamoGraphDeployment") == f"{GROUP}/v1beta1"
