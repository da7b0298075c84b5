"""A stand-in for Dynamo's API store, for the end-to-end tests: the one route the operator and its
image builder use, ``GET /api/v1/dynamo_components/{name}/versions/{version}/download``, answering
artifact tars the test made with ``artifact_tar`` (served by ``e2e.support.file_server``). Any
other path, or an artifact not published, is a 404.

It listens on the address the caller gives: on the real node, the host's address (pods cannot
reach the host's loopback). ``downloads`` counts the GETs of each artifact by ``name:version``.
"""

from __future__ import annotations

import io
import tarfile
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from e2e.support.file_server import ServedFiles, serve_files

__all__ = ["ApiStore", "artifact_tar", "running_api_store"]


def artifact_tar(files: Mapping[str, str]) -> bytes:
    """A gzipped tar of ``files`` (path -> text), as ``dynamo build`` uploads one."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _route(tag: str) -> str:
    name, version = tag.split(":", 1)
    return f"/api/v1/dynamo_components/{name}/versions/{version}/download"


class ApiStore:
    def __init__(self, served: ServedFiles) -> None:
        self._served = served
        self._tags: dict[str, str] = {}
        """The published artifacts: route -> ``name:version``."""

    @property
    def endpoint(self) -> str:
        return self._served.base_url

    def publish(self, tag: str, files: Mapping[str, str]) -> str:
        """Serve ``files`` as the artifact ``tag`` (``name:version``); returns the tag."""
        self.put(tag, artifact_tar(files))
        return tag

    def put(self, tag: str, body: bytes) -> None:
        """Serve ``body`` as it is for ``tag`` (a broken artifact, say)."""
        route = _route(tag)
        self._tags[route] = tag
        self._served.files[route] = body

    @property
    def downloads(self) -> Counter[str]:
        """GETs of each published artifact, by ``name:version``."""
        requests = self._served.requests
        return Counter({tag: requests[route] for route, tag in self._tags.items()})


@contextmanager
def running_api_store(host: str) -> Iterator[ApiStore]:
    """An ``ApiStore`` on ``host`` (a free port), stopped at exit."""
    with serve_files(host, {}) as served:
        yield ApiStore(served)
