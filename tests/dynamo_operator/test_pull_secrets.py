from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from dynamo_operator.errors import MalformedDockerConfigError
from dynamo_operator.pull_secrets import (
    build_pull_secret_index,
    discover_image_pull_secrets,
    image_registry_host,
    normalize_registry_host,
    registry_hosts_of_secret,
)


def secret(name: str, *servers: str, namespace: str = "ns", encoded: bool = True) -> dict[str, Any]:
    payload = json.dumps({"auths": {server: {"auth": "eA=="} for server in servers}})
    body: dict[str, Any] = (
        {"data": {".dockerconfigjson": base64.b64encode(payload.encode()).decode()}}
        if encoded
        else {"stringData": {".dockerconfigjson": payload}}
    )
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "kubernetes.io/dockerconfigjson",
        "metadata": {"name": name, "namespace": namespace},
        **body,
    }


@pytest.mark.parametrize(
    ("server", "host"),
    [
        ("docker.io", "docker.io"),
        ("index.docker.io", "docker.io"),
        ("registry-1.docker.io", "docker.io"),
        ("https://index.docker.io/v1/", "docker.io"),
        ("my-registry.com:5005/registry1", "my-registry.com:5005"),
        ("https://NVCR.io", "nvcr.io"),
    ],
)
def test_registry_servers_are_normalised(server: str, host: str) -> None:
    assert normalize_registry_host(server) == host


@pytest.mark.parametrize(
    ("image", "host"),
    [
        ("nginx", "docker.io"),
        ("library/nginx:1.27", "docker.io"),
        ("nvidia/cuda:12.4", "docker.io"),
        ("docker.io/nvidia/cuda", "docker.io"),
        ("index.docker.io/nvidia/cuda", "docker.io"),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.0", "nvcr.io"),
        ("localhost/img", "localhost"),
        ("registry.local:5000/team/img@sha256:abc", "registry.local:5000"),
    ],
)
def test_image_registry_host(image: str, host: str) -> None:
    assert image_registry_host(image) == host


def test_docker_hub_spellings_match_each_other() -> None:
    index = build_pull_secret_index(
        [
            secret("c", "https://index.docker.io/v1/"),
            secret("a", "registry-1.docker.io", encoded=False),
            secret("b", "docker.io"),
        ]
    )
    assert discover_image_pull_secrets(index, "ns", "myorg/model:latest") == ("a", "b", "c")


def test_lookup_is_scoped_to_the_namespace() -> None:
    index = build_pull_secret_index([secret("ngc", "nvcr.io", namespace="other")])
    assert discover_image_pull_secrets(index, "ns", "nvcr.io/nvidia/x:1") == ()
    assert discover_image_pull_secrets(index, "other", "nvcr.io/nvidia/x:1") == ("ngc",)


def test_result_does_not_depend_on_secret_order() -> None:
    secrets = [secret(name, "nvcr.io") for name in ("zeta", "alpha", "mid")]
    forward = build_pull_secret_index(secrets)
    backward = build_pull_secret_index(list(reversed(secrets)))
    image = "nvcr.io/nvidia/x:1"
    assert discover_image_pull_secrets(forward, "ns", image) == ("alpha", "mid", "zeta")
    assert discover_image_pull_secrets(backward, "ns", image) == ("alpha", "mid", "zeta")


def test_opt_out_annotation_disables_discovery() -> None:
    index = build_pull_secret_index([secret("ngc", "nvcr.io")])
    image = "nvcr.io/nvidia/x:1"
    opt_out = {"nvidia.com/disable-image-pull-secret-discovery": "true"}
    assert discover_image_pull_secrets(index, "ns", image, opt_out) == ()
    not_exactly_true = {"nvidia.com/disable-image-pull-secret-discovery": "yes"}
    assert discover_image_pull_secrets(index, "ns", image, not_exactly_true) == ("ngc",)


def test_no_image_means_no_secrets() -> None:
    index = build_pull_secret_index([secret("hub", "docker.io")])
    assert discover_image_pull_secrets(index, "ns", None) == ()


def test_malformed_secret_is_skipped_without_hiding_the_others() -> None:
    broken = secret("broken", "nvcr.io")
    broken["data"][".dockerconfigjson"] = "%%%"
    index = build_pull_secret_index([broken, secret("good", "nvcr.io")])
    assert index.skipped == ("ns/broken",)
    assert discover_image_pull_secrets(index, "ns", "nvcr.io/x") == ("good",)


def test_non_docker_config_objects_are_ignored() -> None:
    opaque = secret("opaque", "nvcr.io") | {"type": "Opaque"}
    index = build_pull_secret_index([opaque, {"kind": "ConfigMap", "metadata": {"name": "x"}}])
    assert discover_image_pull_secrets(index, "ns", "nvcr.io/x") == ()


@pytest.mark.parametrize(
    "payload",
    [
        {"stringData": {".dockerconfigjson": "not json"}},
        {"stringData": {".dockerconfigjson": "[]"}},
        {},
    ],
)
def test_registry_hosts_of_malformed_secret_raise(payload: dict[str, Any]) -> None:
    with pytest.raises(MalformedDockerConfigError):
        registry_hosts_of_secret(payload)
