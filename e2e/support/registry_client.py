"""The OCI distribution API of a test registry, over plain HTTP, from the test host.

What the tests of image builds ask a registry (the same questions the operator asks it):

- ``push_archive(registry, tar, name)``: a docker-archive tar (``docker save``'s format, what
  ``node/image_tar.py`` and ``hack/image/build.sh`` write) into the registry as ``<name>``
  (``repo:tag``), as an OCI image manifest with the archive's uncompressed layers; no containerd,
  no Docker;
- ``list_tags(registry, repository)``, ``manifest_exists(registry, repository, tag)`` (HEAD with
  the Accept headers a runtime sends: Docker schema 2 and OCI, single images and indexes);
- ``image_config(...)`` and ``image_file_names(...)``: what an image really holds, for checking
  what a build produced (its ENV, the files its COPY and RUN steps wrote).

``registry`` is ``host:port``; ``credentials`` an optional (username, password) sent as HTTP
Basic auth (a registry with htpasswd auth). Standard library only.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MANIFEST_TYPES = (
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
)
_OCI_MANIFEST = MANIFEST_TYPES[0]
_OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
_OCI_LAYER = "application/vnd.oci.image.layer.v1.tar"  # uncompressed, as the archive has it
_TIMEOUT = 60.0

Credentials = tuple[str, str]


class RegistryError(RuntimeError):
    """The registry answered with an error status (``status``; the message has the body)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def archive_repo_tags(tar: Path) -> list[str]:
    """The names a docker-archive gives its image (``manifest.json``'s RepoTags)."""
    with tarfile.open(tar) as archive:
        return list(_archive_manifest(archive).get("RepoTags") or [])


def push_archive(
    registry: str, tar: Path, name: str, credentials: Credentials | None = None
) -> str:
    """Upload the archive's config and layers and tag its manifest ``name``; returns
    ``<registry>/<name>``."""
    repository, _, tag = name.rpartition(":")
    if not repository:
        raise ValueError(f"name {name!r} needs a tag (repo:tag)")
    with tarfile.open(tar) as archive:
        entry = _archive_manifest(archive)
        config = _member_bytes(archive, entry["Config"])
        layers = [_member_bytes(archive, layer) for layer in entry["Layers"]]
    manifest = {
        "schemaVersion": 2,
        "mediaType": _OCI_MANIFEST,
        "config": _upload_blob(registry, repository, config, _OCI_CONFIG, credentials),
        "layers": [
            _upload_blob(registry, repository, layer, _OCI_LAYER, credentials) for layer in layers
        ],
    }
    _request(
        registry,
        "PUT",
        f"/v2/{repository}/manifests/{tag}",
        credentials,
        body=json.dumps(manifest).encode(),
        headers={"Content-Type": _OCI_MANIFEST},
    )
    return f"{registry}/{name}"


def list_tags(registry: str, repository: str, credentials: Credentials | None = None) -> list[str]:
    """The repository's tags, sorted; empty when the repository does not exist."""
    try:
        body = _request(registry, "GET", f"/v2/{repository}/tags/list", credentials)
    except RegistryError as error:
        if error.status == 404:
            return []
        raise
    return sorted(json.loads(body).get("tags") or [])


def manifest_exists(
    registry: str, repository: str, tag: str, credentials: Credentials | None = None
) -> bool:
    """HEAD the manifest, accepting every manifest type: True on 200, False on 404."""
    try:
        _request(
            registry,
            "HEAD",
            f"/v2/{repository}/manifests/{tag}",
            credentials,
            headers={"Accept": ", ".join(MANIFEST_TYPES)},
        )
    except RegistryError as error:
        if error.status == 404:
            return False
        raise
    return True


def image_manifest(
    registry: str, repository: str, tag: str, credentials: Credentials | None = None
) -> dict[str, Any]:
    """The image manifest (for an index, the linux/amd64 entry's manifest)."""
    path = f"/v2/{repository}/manifests/{tag}"
    headers = {"Accept": ", ".join(MANIFEST_TYPES)}
    manifest: dict[str, Any] = json.loads(
        _request(registry, "GET", path, credentials, headers=headers)
    )
    if "manifests" in manifest:
        platform = next(
            m for m in manifest["manifests"] if m.get("platform", {}).get("architecture") == "amd64"
        )
        path = f"/v2/{repository}/manifests/{platform['digest']}"
        manifest = json.loads(_request(registry, "GET", path, credentials, headers=headers))
    return manifest


def image_config(
    registry: str, repository: str, tag: str, credentials: Credentials | None = None
) -> dict[str, Any]:
    """The image's config blob (``config.Env``, ``config.Entrypoint``, ``rootfs``...)."""
    manifest = image_manifest(registry, repository, tag, credentials)
    digest = manifest["config"]["digest"]
    config: dict[str, Any] = json.loads(_blob(registry, repository, digest, credentials))
    return config


def image_file_names(
    registry: str, repository: str, tag: str, credentials: Credentials | None = None
) -> set[str]:
    """Every path in every layer of the image (``greeting.txt``, ``bin/sh``: no leading slash)."""
    names: set[str] = set()
    for layer in image_manifest(registry, repository, tag, credentials)["layers"]:
        data = _blob(registry, repository, layer["digest"], credentials)
        # "r:*" reads gzip, zstd-less uncompressed and bzip2 layers alike.
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            names.update(member.name.removeprefix("./") for member in archive.getmembers())
    return names


# -- HTTP ---------------------------------------------------------------------------------------


def _upload_blob(
    registry: str,
    repository: str,
    data: bytes,
    media_type: str,
    credentials: Credentials | None,
) -> dict[str, Any]:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    descriptor = {"mediaType": media_type, "digest": digest, "size": len(data)}
    try:
        _request(registry, "HEAD", f"/v2/{repository}/blobs/{digest}", credentials)
        return descriptor  # already there (a layer shared with another image)
    except RegistryError as error:
        if error.status != 404:
            raise
    # Monolithic upload: POST opens the session, PUT with the digest sends the bytes and closes it.
    location = _request(
        registry, "POST", f"/v2/{repository}/blobs/uploads/", credentials, want="Location"
    )
    separator = "&" if "?" in location else "?"
    _request(
        registry,
        "PUT",
        f"{location}{separator}digest={digest}",
        credentials,
        body=data,
        headers={"Content-Type": "application/octet-stream"},
    )
    return descriptor


def _blob(registry: str, repository: str, digest: str, credentials: Credentials | None) -> bytes:
    path = f"/v2/{repository}/blobs/{digest}"
    data: bytes = _request(registry, "GET", path, credentials, raw=True)
    return data


def _request(
    registry: str,
    method: str,
    path: str,
    credentials: Credentials | None,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    want: str | None = None,
    raw: bool = False,
) -> Any:
    """One request; ``path`` may be an absolute URL (an upload ``Location``). Returns the body
    (text, or bytes with ``raw``), or the header ``want``; raises ``RegistryError`` on a status
    >= 300 with the status and the body's start."""
    url = path if path.startswith("http") else f"http://{registry}{path}"
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    if credentials is not None:
        token = base64.b64encode(f"{credentials[0]}:{credentials[1]}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT) as reply:
            if want is not None:
                value = reply.headers.get(want, "")
                return value if value.startswith("http") else f"http://{registry}{value}"
            data = reply.read()
            return data if raw else data.decode()
    except urllib.error.HTTPError as error:
        detail = error.read()[:500].decode(errors="replace")
        raise RegistryError(f"{method} {url}: {error.code} {detail}", error.code) from None


def _archive_manifest(archive: tarfile.TarFile) -> dict[str, Any]:
    entries = json.loads(_member_bytes(archive, "manifest.json"))
    if len(entries) != 1:
        raise ValueError(f"{archive.name!r}: expected one image, found {len(entries)}")
    entry: dict[str, Any] = entries[0]
    return entry


def _member_bytes(archive: tarfile.TarFile, name: str) -> bytes:
    member = archive.extractfile(name)
    if member is None:
        raise ValueError(f"{archive.name!r}: {name} is not a file")
    return member.read()
