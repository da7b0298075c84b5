"""Image pull secret discovery: which dockerconfigjson Secrets can pull a given image.

The index maps namespace -> registry host -> secret names, built from the ``auths`` keys of every
``kubernetes.io/dockerconfigjson`` Secret. Docker Hub has many spellings (``docker.io``,
``index.docker.io``, ``registry-1.docker.io``, ``https://index.docker.io/v1/`` and images without a
registry host), all normalised to ``docker.io`` on both sides. Lookups return sorted, de-duplicated
names, so the result depends only on the set of Secrets: an operator restart never changes a pod
template.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dynamo_operator.constants import (
    DOCKER_CONFIG_JSON_KEY,
    DOCKER_CONFIG_JSON_SECRET_TYPE,
    DOCKER_HUB_HOST,
    Annotations,
)
from dynamo_operator.errors import MalformedDockerConfigError

_DOCKER_HUB_ALIASES = frozenset({"docker.io", "index.docker.io", "registry-1.docker.io"})


def normalize_registry_host(server: str) -> str:
    """The ``host[:port]`` of a registry as written in an ``auths`` key or an image reference.

    Drops the scheme and any path (``my-registry.com:5005/registry1`` -> ``my-registry.com:5005``),
    lower-cases the host and maps every Docker Hub alias to ``docker.io``.
    """
    host = server.strip()
    if "://" in host:
        host = host.split("://", 1)[1]
    host = host.split("/", 1)[0].lower()
    return DOCKER_HUB_HOST if host in _DOCKER_HUB_ALIASES else host


def image_registry_host(image: str) -> str:
    """The registry an image is pulled from, following the Docker reference grammar.

    The first path component is a registry only if it contains ``.`` or ``:`` or is ``localhost``;
    otherwise (``nginx``, ``library/nginx``, ``nvidia/cuda``) the image lives on Docker Hub.
    """
    reference = image.strip()
    if "/" not in reference:
        return DOCKER_HUB_HOST
    first = reference.split("/", 1)[0]
    if "." in first or ":" in first or first == "localhost":
        return normalize_registry_host(first)
    return DOCKER_HUB_HOST


def registry_hosts_of_secret(secret: Mapping[str, Any]) -> frozenset[str]:
    """Normalised registry hosts a dockerconfigjson Secret authenticates to.

    Reads ``data`` (base64, as stored by the API server) or ``stringData`` (plain, as written in
    manifests given to ``render``).
    """
    payload = _docker_config_payload(secret)
    try:
        config = json.loads(payload)
    except (ValueError, RecursionError) as error:
        raise MalformedDockerConfigError(f"{DOCKER_CONFIG_JSON_KEY} is not JSON") from error
    auths = config.get("auths") if isinstance(config, dict) else None
    if not isinstance(auths, dict):
        raise MalformedDockerConfigError(f"{DOCKER_CONFIG_JSON_KEY} has no auths map")
    return frozenset(normalize_registry_host(key) for key in auths if isinstance(key, str) and key)


def _docker_config_payload(secret: Mapping[str, Any]) -> str:
    string_data = _mapping(secret, "stringData")
    if DOCKER_CONFIG_JSON_KEY in string_data:
        value = string_data[DOCKER_CONFIG_JSON_KEY]
        if not isinstance(value, str):
            raise MalformedDockerConfigError(f"stringData.{DOCKER_CONFIG_JSON_KEY} is not a string")
        return value
    encoded = _mapping(secret, "data").get(DOCKER_CONFIG_JSON_KEY)
    if not isinstance(encoded, str):
        raise MalformedDockerConfigError(f"missing {DOCKER_CONFIG_JSON_KEY}")
    try:
        return base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as error:
        raise MalformedDockerConfigError(f"{DOCKER_CONFIG_JSON_KEY} is not base64") from error


def _mapping(secret: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = secret.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MalformedDockerConfigError(f"{key} is not a map")
    return value


def is_docker_config_secret(obj: Mapping[str, Any]) -> bool:
    return obj.get("kind") == "Secret" and obj.get("type") == DOCKER_CONFIG_JSON_SECRET_TYPE


@dataclass(frozen=True, slots=True)
class PullSecretIndex:
    """Immutable namespace -> registry host -> sorted secret names.

    ``skipped`` names the Secrets (``namespace/name``) ignored because their payload was malformed;
    one broken Secret must not hide the others (an upstream bug failed the whole refresh).
    """

    by_namespace: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()

    def lookup(self, namespace: str, image: str) -> tuple[str, ...]:
        return self.by_namespace.get(namespace, {}).get(image_registry_host(image), ())


def build_pull_secret_index(
    secrets: Iterable[Mapping[str, Any]], *, default_namespace: str = "default"
) -> PullSecretIndex:
    """Index every dockerconfigjson Secret among ``secrets``; other objects are ignored."""
    names: dict[str, dict[str, set[str]]] = {}
    skipped: list[str] = []
    for secret in secrets:
        if not is_docker_config_secret(secret):
            continue
        metadata = secret.get("metadata")
        metadata = metadata if isinstance(metadata, Mapping) else {}
        namespace = metadata.get("namespace") or default_namespace
        name = metadata.get("name")
        if not isinstance(name, str) or not name or not isinstance(namespace, str):
            continue  # an object without a usable name cannot be referenced by a pod
        try:
            hosts = registry_hosts_of_secret(secret)
        except MalformedDockerConfigError:
            skipped.append(f"{namespace}/{name}")
            continue
        for host in hosts:
            names.setdefault(namespace, {}).setdefault(host, set()).add(name)
    by_namespace = {
        namespace: {host: tuple(sorted(found)) for host, found in hosts_map.items()}
        for namespace, hosts_map in names.items()
    }
    return PullSecretIndex(by_namespace=by_namespace, skipped=tuple(sorted(skipped)))


def is_discovery_disabled(annotations: Mapping[str, str] | None) -> bool:
    """The opt-out annotation, for a public image next to a broken secret (exact string "true")."""
    return (annotations or {}).get(Annotations.DISABLE_IMAGE_PULL_SECRET_DISCOVERY) == "true"


def discover_image_pull_secrets(
    index: PullSecretIndex,
    namespace: str,
    image: str | None,
    annotations: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """Sorted names of the Secrets in ``namespace`` that authenticate to ``image``'s registry."""
    if not image or is_discovery_disabled(annotations):
        return ()
    return index.lookup(namespace, image)
