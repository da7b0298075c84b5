"""Health probes on port 8081: `/healthz` (liveness) and `/readyz` (readiness).

Each endpoint runs its named checks; every check must pass for 200, otherwise 500 with the
failing names. As in Kubernetes and controller-runtime, `/<endpoint>/<check>` runs one check,
`?verbose` lists every check with `[+]`/`[-]`, and `?exclude=<check>` skips one. Liveness has a
`ping` check (the event loop answers); the manager adds readiness checks, so the pod is ready only
after its caches have synced.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from manager.runtime.http_server import AppServer

__all__ = ["DEFAULT_HEALTH_PORT", "Check", "HealthProbes"]

DEFAULT_HEALTH_PORT = 8081

Check = Callable[[], bool]


class HealthProbes:
    """The named liveness and readiness checks, and the server that answers them."""

    def __init__(self) -> None:
        self._checks: dict[str, dict[str, Check]] = {
            "healthz": {"ping": lambda: True},
            "readyz": {},
        }

    def add_healthz_check(self, name: str, check: Check) -> None:
        self._checks["healthz"][name] = check

    def add_readyz_check(self, name: str, check: Check) -> None:
        self._checks["readyz"][name] = check

    def passes(self, endpoint: str) -> bool:
        """Whether every check of `endpoint` ("healthz" or "readyz") passes now."""
        return all(_passes(check) for check in self._checks[endpoint].values())

    def server(self, *, host: str = "0.0.0.0", port: int = DEFAULT_HEALTH_PORT) -> AppServer:
        app = web.Application()
        for endpoint in self._checks:
            app.router.add_get(f"/{endpoint}", self._handler(endpoint))
            app.router.add_get(f"/{endpoint}/{{check}}", self._handler(endpoint))
        return AppServer(app, host=host, port=port)

    def _handler(self, endpoint: str) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handle(request: web.Request) -> web.Response:
            checks = self._checks[endpoint]
            only = request.match_info.get("check")
            if only is not None and only not in checks:
                raise web.HTTPNotFound(text=f"no check named {only!r}\n")
            excluded = set(request.query.getall("exclude", []))
            selected = [only] if only else [name for name in checks if name not in excluded]
            results = {name: _passes(checks[name]) for name in selected}
            failed = [name for name, ok in results.items() if not ok]
            if "verbose" in request.query or failed:
                lines = [
                    f"[{'+' if ok else '-'}]{name} {'ok' if ok else 'failed'}"
                    for name, ok in results.items()
                ]
                verdict = f"{endpoint} check failed" if failed else f"{endpoint} check passed"
                return web.Response(
                    text="\n".join([*lines, verdict]) + "\n", status=500 if failed else 200
                )
            return web.Response(text="ok")

        return handle


def _passes(check: Check) -> bool:
    try:
        return check()
    except Exception:  # a check that raises is a failed check, not a failed probe server
        return False
