"""Where the operator's API requests go, for `bench/converge.py --profile`.

Two halves:

* run as a script, it is `dynamo-operator run` with every API request recorded: the transport's
  `request` and `stream` are wrapped to append one JSON line per request (wall time, method,
  path, content type, status) to a file, then the ordinary command line runs. Nothing else in
  the process changes; the bench starts it with `LOG_LEVEL=debug`, so the client's "applying" and
  "writing status" lines also say which field differed.

      python -m bench.converge_profile REQUEST_LOG run [dynamo-operator run flags...]

* imported, it reads that file and the operator's log back and prints the breakdown: requests
  by verb and resource within a time window, their latency, writes per object, the fields that
  made the operator write, and what the operator's cache holds of the bench's namespace.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import orjson

from manager.app.kinds import COMPONENT, GRAPH
from manager.runtime.cache import strip_for_cache
from manager.runtime.client import RestClient
from manager.runtime.kinds import DEPLOYMENT, POD, SERVICE

_PATCH_VERBS = {
    "application/apply-patch+yaml": "apply",
    "application/merge-patch+json": "merge-patch",
    "application/json-patch+json": "json-patch",
    "application/strategic-merge-patch+json": "strategic-patch",
}
_VERBS = {"POST": "create", "PUT": "update", "DELETE": "delete"}
_INDEX = re.compile(r"\[\d+\]")


# -- the recording side (inside the operator process) -----------------------------------------


def install_recorder(log: TextIO) -> None:
    """Wrap the aiohttp transport so each request adds a line to `log`."""
    from manager.runtime.client.aiohttp_transport import AiohttpTransport

    request, stream = AiohttpTransport.request, AiohttpTransport.stream

    def record(method: str, path: str, status: int | None, **extra: Any) -> None:
        entry = {"t": time.time(), "m": method, "p": path, "s": status, **extra}
        log.write(json.dumps(entry, separators=(",", ":")) + "\n")

    async def recorded_request(self: Any, method: str, path: str, **kwargs: Any) -> Any:
        extra = _describe_body(method, kwargs.get("content_type"), kwargs.get("body"))
        started = time.perf_counter()
        try:
            response = await request(self, method, path, **kwargs)
        except Exception:
            record(method, path, None, d=time.perf_counter() - started, **extra)
            raise
        record(method, path, response.status, d=time.perf_counter() - started, **extra)
        return response

    @contextlib.asynccontextmanager
    async def recorded_stream(self: Any, path: str, **kwargs: Any) -> AsyncIterator[Any]:
        async with stream(self, path, **kwargs) as response:
            record("WATCH", path, response.status)
            yield response

    AiohttpTransport.request = recorded_request  # type: ignore[method-assign]
    AiohttpTransport.stream = recorded_stream  # type: ignore[method-assign]


def _describe_body(method: str, content_type: str | None, body: bytes | None) -> dict[str, Any]:
    """The content type; for a create, the new object's name; for a merge patch, the fields it
    removes (set to null)."""
    extra: dict[str, Any] = {"ct": content_type}
    if not body or method not in ("POST", "PATCH"):
        return extra
    try:
        document = json.loads(body)
    except ValueError:
        return extra
    if method == "POST" and isinstance(document, dict):
        extra["name"] = (document.get("metadata") or {}).get("name")
    elif content_type == "application/merge-patch+json":
        extra["removes"] = sorted(_null_paths(document, ""))
    return extra


def _null_paths(document: Any, path: str) -> Iterable[str]:
    if document is None:
        yield path
    elif isinstance(document, dict):
        for key, value in document.items():
            yield from _null_paths(value, f"{path}.{key}" if path else key)


def main() -> int:
    from manager.app import cli

    with open(sys.argv[1], "a", buffering=1) as log:  # line-buffered: survives SIGKILL mostly
        install_recorder(log)
        return cli.main(sys.argv[2:])


# -- the reading side (in the bench) -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Request:
    time: float
    verb: str  # get, list, watch, create, update, apply, merge-patch, json-patch, delete
    resource: str  # plural, e.g. deployments; "discovery" for /api, /apis/...
    subresource: str | None
    name: str | None
    status: int | None
    seconds: float = 0.0  # how long the request took (watches: until the server answered)
    removes: tuple[str, ...] = ()

    @property
    def is_write(self) -> bool:
        return self.verb not in ("get", "list", "watch")

    @property
    def target(self) -> str:
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource


def _split(path: str) -> tuple[str, str | None, str | None]:
    """(resource, name, subresource) of an API path."""
    parts = [part for part in path.split("?")[0].strip("/").split("/") if part]
    if parts[:1] == ["api"]:
        rest = parts[2:]
    elif parts[:1] == ["apis"]:
        rest = parts[3:]
    else:
        return "discovery", None, None
    if len(rest) >= 3 and rest[0] == "namespaces":
        rest = rest[2:]
    if not rest:
        return "discovery", None, None
    return rest[0], (rest[1] if len(rest) > 1 else None), (rest[2] if len(rest) > 2 else None)


def read_requests(path: Path) -> list[Request]:
    requests = []
    for line in path.read_text().splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            resource, name, subresource = _split(entry["p"])
            method = entry["m"]
            if method == "WATCH":
                verb = "watch"
            elif method == "GET":
                verb = "get" if name else "list"
            elif method == "PATCH":
                verb = _PATCH_VERBS.get(entry.get("ct") or "", "patch")
            else:
                verb = _VERBS.get(method, method.lower())
            requests.append(
                Request(
                    entry["t"],
                    verb,
                    resource,
                    subresource,
                    name or _involved_name(resource, entry.get("name")),
                    entry.get("s"),
                    float(entry.get("d") or 0.0),
                    tuple(entry.get("removes") or ()),
                )
            )
    return requests


def _involved_name(resource: str, created: str | None) -> str | None:
    """A created object's name; for an Event, the object it is about (`<name>.<hex>`)."""
    if resource == "events" and created:
        return created.rsplit(".", 1)[0]
    return created


def removals(requests: Iterable[Request]) -> Counter[tuple[str, str]]:
    """(resource, field a merge patch removed): why a merge patch was sent instead of an apply."""
    return Counter(
        (request.target, _INDEX.sub("[]", path)) for request in requests for path in request.removes
    )


def within(requests: Iterable[Request], start: float, end: float) -> list[Request]:
    return [request for request in requests if start <= request.time < end]


def by_verb_and_resource(requests: Iterable[Request]) -> Counter[tuple[str, str]]:
    return Counter((request.verb, request.target) for request in requests)


def mean_seconds(requests: Iterable[Request]) -> dict[tuple[str, str], float]:
    """Mean duration of the requests of each (verb, resource[/subresource])."""
    totals: dict[tuple[str, str], list[float]] = defaultdict(list)
    for request in requests:
        totals[(request.verb, request.target)].append(request.seconds)
    return {key: sum(values) / len(values) for key, values in totals.items()}


@dataclass(frozen=True, slots=True)
class WritesPerObject:
    verb: str
    target: str
    writes: int
    objects: int
    most: int

    @property
    def mean(self) -> float:
        return self.writes / self.objects if self.objects else 0.0


def writes_per_object(requests: Iterable[Request]) -> list[WritesPerObject]:
    """For each (verb, resource[/subresource]): how many writes landed on how many objects."""
    per_object: dict[tuple[str, str], Counter[str | None]] = defaultdict(Counter)
    for request in requests:
        if request.is_write:
            per_object[(request.verb, request.target)][request.name] += 1
    rows = [
        WritesPerObject(verb, target, sum(names.values()), len(names), max(names.values()))
        for (verb, target), names in per_object.items()
    ]
    return sorted(rows, key=lambda row: -row.writes)


def error_statuses(requests: Iterable[Request]) -> Counter[tuple[str, str, int | None]]:
    return Counter(
        (request.verb, request.target, request.status)
        for request in requests
        if request.status is None or request.status >= 400
    )


WRITE_MESSAGES = ("applying", "writing status", "adding an owner")


def write_reasons(log_path: Path, start: float, end: float) -> Counter[tuple[str, str, str]]:
    """(message, kind, first differing field with list indexes dropped) of the client's debug
    lines (`WRITE_MESSAGES`) between `start` and `end` (wall clock)."""
    reasons: Counter[tuple[str, str, str]] = Counter()
    for line in log_path.read_text(errors="replace").splitlines():
        try:
            record: Mapping[str, Any] = json.loads(line)
        except ValueError:
            continue
        message = record.get("msg")
        if message not in WRITE_MESSAGES or not isinstance(record, dict):
            continue
        stamp = _wall_time(str(record.get("ts") or ""))
        if stamp is None or not start <= stamp < end:
            continue
        field = _INDEX.sub("[]", str(record.get("field") or ""))
        reasons[(str(message), str(record.get("kind")), field)] += 1
    return reasons


def _wall_time(iso: str) -> float | None:
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


# -- the report ---------------------------------------------------------------------------------


async def cached_bytes(rest: RestClient, namespace: str) -> list[str]:
    """Per cached kind: objects and their size as the informers keep them, for the RSS."""
    lines = []
    for kind in (POD, DEPLOYMENT, SERVICE, COMPONENT, GRAPH):
        items, _ = await rest.list_all(kind, namespace)
        sizes = [len(orjson.dumps(strip_for_cache(kind, item))) for item in items]
        line = f"{kind.kind:28} {len(items):5} objects {sum(sizes) / 1024:9.0f} KiB"
        line += f" {sum(sizes) / max(len(sizes), 1):7.0f} B each"
        if kind is POD and items:
            spec = sum(len(orjson.dumps(item.get("spec"))) for item in items) / len(items)
            line += f" (spec {spec:.0f} B)"
        lines.append(line)
    return lines


def print_profile(
    request_log: Path, log_path: Path, n: int, start: float, converged: float, settled: float
) -> None:
    requests = within(read_requests(request_log), start, settled)
    print(f"  requests from the first graph created until idle, per graph (N={n}), mean latency:")
    latency = mean_seconds(requests)
    for (verb, target), count in sorted(
        by_verb_and_resource(requests).items(), key=lambda item: -item[1]
    ):
        print(
            f"    {verb:12} {target:40} {count / n:7.2f}  ({count})"
            f"  {1000 * latency[(verb, target)]:7.1f} ms"
        )
    print("  writes per object (verb, resource: writes / objects = mean, max):")
    for row in writes_per_object(requests):
        print(
            f"    {row.verb:12} {row.target:40} {row.writes:6} / {row.objects:5} = "
            f"{row.mean:5.2f}, max {row.most}"
        )
    errors = error_statuses(requests)
    if errors:
        print("  failed requests:", dict(errors))
    removed = removals(requests)
    if removed:
        print(f"  fields merge patches removed: {dict(removed)}")
    late = [r for r in requests if r.time >= converged and r.is_write]
    print(f"  writes after convergence: {dict(by_verb_and_resource(late))}")
    print("  why the operator wrote (debug log: message, kind, first differing field):")
    for (message, kind, field_path), count in write_reasons(log_path, start, settled).most_common(
        25
    ):
        print(f"    {count:6}  {message:15} {kind:28} {field_path}")


if __name__ == "__main__":
    sys.exit(main())
