"""A tiny HTTP server of fixed files, for Pods on the real node to download from (a build context
tar for a builder Job's init container, an artifact for an API-store stand-in).

Pods cannot reach the host's loopback: serve on the node IP (``real_node.node.node_ip``)::

    with serve_files(real_node.node.node_ip, {"/context.tar": data}) as base_url:
        ...  # a Pod runs: wget -O - {base_url}/context.tar | tar -x -C /workspace

Each GET of a known path answers 200 with its bytes; anything else 404. ``requests`` counts the
GETs per path (a test can assert something was, or was not, downloaded). The server runs in a
daemon thread and stops when the block ends.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class ServedFiles:
    base_url: str
    files: dict[str, bytes]
    requests: Counter[str] = field(default_factory=Counter)


@contextmanager
def serve_files(host: str, files: dict[str, bytes]) -> Iterator[ServedFiles]:
    """Serve ``files`` (path -> bytes; the dict may be changed while serving) on ``host`` at a
    free port."""
    served = ServedFiles("", files)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            served.requests[self.path] += 1
            body = served.files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: pytest shows failures, not every download

    server = ThreadingHTTPServer((host, 0), Handler)
    served.base_url = f"http://{host}:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="serve-files", daemon=True)
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
