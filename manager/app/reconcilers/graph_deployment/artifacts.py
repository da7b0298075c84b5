"""The ``dynamo.yaml`` of a built artifact, from the API store.

``GET {API_STORE_ENDPOINT}/api/v1/dynamo_components/{name}/versions/{version}/download`` (or the
component's ``downloadUrl``) answers
the artifact as a tar (gzipped or not). The graph controller needs only its ``dynamo.yaml`` (which
services the graph has), so the archive is read as a stream until that member and the connection
is closed: a large artifact costs no memory, and the image builder downloads it on its own.

An artifact version never changes, so each ``dynamo.yaml`` is fetched once per operator process
(by URL, for the most recent ``capacity`` artifacts); a failure is not kept, the graph retries.
"""

from __future__ import annotations

import tarfile
import urllib.error
import urllib.request
from collections import OrderedDict
from typing import Protocol

import anyio

__all__ = ["ArtifactError", "ArtifactStore", "HttpArtifactStore"]

MANIFEST_NAMES = ("dynamo.yaml", "dynamo.yml")
MAX_MANIFEST_BYTES = 1 << 20


class ArtifactError(Exception):
    """The artifact or its ``dynamo.yaml`` could not be read; the message says why."""


class ArtifactStore(Protocol):
    async def manifest(self, url: str) -> str:
        """The ``dynamo.yaml`` of the artifact at ``url``; ArtifactError says why not."""
        ...


class HttpArtifactStore:
    def __init__(self, *, timeout: float = 30.0, capacity: int = 256) -> None:
        self._timeout = timeout
        self._capacity = capacity
        self._manifests: OrderedDict[str, str] = OrderedDict()

    async def manifest(self, url: str) -> str:
        if (cached := self._manifests.get(url)) is not None:
            self._manifests.move_to_end(url)
            return cached
        text = await anyio.to_thread.run_sync(_read_manifest, url, self._timeout)
        self._manifests[url] = text
        while len(self._manifests) > self._capacity:
            self._manifests.popitem(last=False)
        return text


def _read_manifest(url: str, timeout: float) -> str:
    try:
        with (
            urllib.request.urlopen(url, timeout=timeout) as response,
            tarfile.open(fileobj=response, mode="r|*") as archive,
        ):
            for member in archive:
                if member.isfile() and member.name.lstrip("./") in MANIFEST_NAMES:
                    if member.size > MAX_MANIFEST_BYTES:
                        raise ArtifactError(f"{member.name} is larger than 1 MiB")
                    content = archive.extractfile(member)
                    assert content is not None
                    return content.read().decode()
    except urllib.error.HTTPError as error:
        raise ArtifactError(f"the API store answered HTTP {error.code} for {url}") from None
    except (urllib.error.URLError, OSError) as error:
        raise ArtifactError(f"the API store could not be reached at {url}: {error}") from None
    except tarfile.TarError as error:
        raise ArtifactError(f"the artifact at {url} is not a tar archive: {error}") from None
    except UnicodeDecodeError:
        raise ArtifactError(f"the artifact's dynamo.yaml at {url} is not UTF-8") from None
    raise ArtifactError(f"the artifact at {url} has no dynamo.yaml at its top level")
