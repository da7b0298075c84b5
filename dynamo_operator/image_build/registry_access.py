"""How to ask an OCI registry whether an image exists: the image name's parts, the manifest URL,
the credentials a docker config JSON holds for a registry, and the token challenge a registry
answers with (the distribution spec's ``GET /v2/<name>/manifests/<reference>`` and the Docker
token-auth flow). Pure: the operator's HTTP client does the asking."""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass

__all__ = [
    "MANIFEST_MEDIA_TYPES",
    "BasicCredentials",
    "Challenge",
    "ImageName",
    "RegistryConfigError",
    "credentials_for",
    "manifest_url",
    "parse_challenge",
    "parse_image_name",
    "token_request",
]

DOCKER_HUB = "docker.io"
DOCKER_HUB_API = "registry-1.docker.io"

MANIFEST_MEDIA_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)
"""What a manifest request accepts: a registry answers 404 for a type it was not offered."""


class RegistryConfigError(ValueError):
    """A docker config JSON or an image name the operator cannot use; the message says why."""


@dataclass(frozen=True, slots=True)
class ImageName:
    registry: str
    """``host[:port]`` as written in the name (``docker.io`` when the name has none)."""
    repository: str
    reference: str
    """A tag, or a digest (``sha256:...``)."""

    @property
    def api_host(self) -> str:
        return DOCKER_HUB_API if self.registry == DOCKER_HUB else self.registry


def parse_image_name(image: str) -> ImageName:
    """``[host[:port]/]path[:tag][@digest]``, with Docker's defaults (``docker.io``,
    ``library/``, ``latest``)."""
    rest, _, digest = image.partition("@")
    first, slash, remainder = rest.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        registry, path = first, remainder
    else:
        registry, path = DOCKER_HUB, rest
    repository, colon, tag = path.rpartition(":") if ":" in path else (path, "", "")
    if not colon:
        repository, tag = path, "latest"
    if registry == DOCKER_HUB and "/" not in repository:
        repository = f"library/{repository}"
    if not repository or not re.fullmatch(r"[a-z0-9]+(?:[._/-][a-z0-9]+)*", repository):
        raise RegistryConfigError(f"'{image}' is not a valid image name")
    return ImageName(registry, repository, digest or tag)


def manifest_url(name: ImageName, *, secure: bool) -> str:
    scheme = "https" if secure else "http"
    return f"{scheme}://{name.api_host}/v2/{name.repository}/manifests/{name.reference}"


@dataclass(frozen=True, slots=True)
class BasicCredentials:
    username: str
    password: str

    def header(self) -> str:
        pair = f"{self.username}:{self.password}".encode()
        return f"Basic {base64.b64encode(pair).decode()}"


def credentials_for(docker_config_json: str, registry: str) -> BasicCredentials | None:
    """The credentials a ``.dockerconfigjson`` holds for ``registry`` (its ``auths`` keys may be
    ``host``, ``host:port`` or a URL), or None when it has none for it."""
    try:
        config = json.loads(docker_config_json)
    except ValueError as error:
        raise RegistryConfigError(f"the docker config is not JSON: {error}") from None
    auths = config.get("auths") if isinstance(config, dict) else None
    if not isinstance(auths, dict):
        raise RegistryConfigError("the docker config has no 'auths' object")
    hosts = {registry, DOCKER_HUB_API} if registry == DOCKER_HUB else {registry}
    for key, entry in auths.items():
        if _host_of(key) in hosts or (registry == DOCKER_HUB and "index.docker.io" in key):
            return _entry_credentials(key, entry)
    return None


def _host_of(key: str) -> str:
    return re.sub(r"^[a-z]+://", "", key).split("/", 1)[0]


def _entry_credentials(key: str, entry: object) -> BasicCredentials:
    if not isinstance(entry, dict):
        raise RegistryConfigError(f"auths['{key}'] is not an object")
    if entry.get("username") is not None:
        return BasicCredentials(str(entry["username"]), str(entry.get("password") or ""))
    try:
        username, colon, password = (
            base64.b64decode(str(entry.get("auth") or ""), validate=True).decode().partition(":")
        )
    except (binascii.Error, UnicodeDecodeError):
        raise RegistryConfigError(f"auths['{key}'].auth is not base64 of 'user:password'") from None
    if not colon:
        raise RegistryConfigError(f"auths['{key}'] has neither username nor auth 'user:password'")
    return BasicCredentials(username, password)


@dataclass(frozen=True, slots=True)
class Challenge:
    """A ``WWW-Authenticate`` header: its scheme (``basic`` or ``bearer``) and parameters."""

    scheme: str
    params: dict[str, str]


def parse_challenge(header: str) -> Challenge:
    scheme, _, rest = header.strip().partition(" ")
    params = {key.lower(): value for key, value in re.findall(r'(\w+)="([^"]*)"', rest)}
    return Challenge(scheme.lower(), params)


def token_request(challenge: Challenge, name: ImageName) -> tuple[str, dict[str, str]]:
    """Where a bearer challenge says to get a pull token for ``name``: the realm URL and the
    query parameters to send it."""
    realm = challenge.params.get("realm")
    if not realm:
        raise RegistryConfigError("the registry's bearer challenge names no realm")
    query = {"scope": challenge.params.get("scope") or f"repository:{name.repository}:pull"}
    if service := challenge.params.get("service"):
        query["service"] = service
    return realm, query
