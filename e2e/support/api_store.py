"""A stand-in for Dynamo's API store, for the end-to-end tests: the one route the operator and its
image builder use, ``GET /api/v1/dynamo_components/{name}/versions/{version}/download``, answering
artifact tars the test made with ``artifact_tar``. Any other path, or an artifact not published,
is a 404.

It listens on the address the caller gives: on the real node, the host's address (pods cannot
reach the host's loopback). ``downloads`` counts the answered downloads by ``name:version``.
"""

from __future__ import annotations

import io
import re
import tarfile
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["ApiStore", "artifact_tar", "running_api_store"]

_ROUTE = re.compile(r"^/api/v1/dynamo_(?:components|nims)/([^/]+)/versions/([^/]+)/download$")


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


class ApiStore:
    def __init__(self, server: ThreadingHTTPServer) -> None:
        self._server = server
        self.artifacts: dict[str, bytes] = {}
        self.downloads: Counter[str] = Counter()

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def publish(self, tag: str, files: Mapping[str, str]) -> str:
        """Serve ``files`` as the artifact ``tag`` (``name:version``); returns the tag."""
        self.artifacts[tag] = artifact_tar(files)
        return tag


@contextmanager
def running_api_store(host: str) -> Iterator[ApiStore]:
    """An ``ApiStore`` on ``host`` (a free port), stopped at exit."""
    store: ApiStore

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            match = _ROUTE.match(self.path.split("?", 1)[0])
            tag = f"{match.group(1)}:{match.group(2)}" if match else ""
            body = store.artifacts.get(tag)
            if body is None:
                self.send_error(404, f"no artifact {tag or self.path}")
                return
            store.downloads[tag] += 1
            self.send_response(200)
            self.send_header("Content-Type", "application/x-tar")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    store = ApiStore(server)
    thread = threading.Thread(target=server.serve_forever, name="api-store", daemon=True)
    thread.start()
    try:
        yield store
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
