"""Which backend a component runs: declared (``backendFramework``), else read off its command.

Upstream's own example graphs often leave ``backendFramework`` unset and launch
``python3 -m dynamo.vllm ...``. Every rule that depends on the backend (multinode wiring, probes of
multinode workers, the compilation-cache default, the backend a graph's generated components
declare) must see the same answer in validation, in ``render`` and in the reconciler, so the
answer is computed here only.

A backend is launched when the command line (command and args joined, also inside
``sh -c "<script>"``) has a Python interpreter running ``-m ...dynamo.<backend>`` within one
command: nothing between them crosses a pipe, ``&`` or ``;`` (upstream's
``detectBackendFrameworkFromArgs``, one pattern per backend). So
``python -m dynamo.vllm && python -m dynamo.sglang`` launches two backends, which upstream refuses
and so do we.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from dynamo_operator.api.constants import WORKER_LIKE_COMPONENT_TYPES, BackendFramework

__all__ = ["effective_backend", "launched_backends", "worker_backends"]

_LAUNCH_PATTERNS = {
    backend: re.compile(rf"python[0-9.]*\s+[^|&;]*-m\s+[^|&;]*dynamo\.{backend.value}\b")
    for backend in BackendFramework
}


def launched_backends(container: Mapping[str, Any] | None) -> frozenset[BackendFramework]:
    """Backends the container launches with ``python -m dynamo.<backend>`` (command and args,
    also inside ``sh -c "<script>"``)."""
    if not container:
        return frozenset()
    line = " ".join([*_strings(container.get("command")), *_strings(container.get("args"))])
    return frozenset(
        backend for backend, pattern in _LAUNCH_PATTERNS.items() if pattern.search(line)
    )


def effective_backend(
    declared: str | None, container: Mapping[str, Any] | None
) -> BackendFramework | None:
    """The declared backend; else the one backend the container launches; else None (none or
    several launched: validation refuses the latter, the builders too)."""
    if declared:
        return BackendFramework(declared)
    launched = launched_backends(container)
    return next(iter(launched)) if len(launched) == 1 else None


def worker_backends(
    services: Iterable[tuple[str, str | None, Mapping[str, Any] | None]],
) -> dict[str, BackendFramework]:
    """The backend each worker, prefill or decode service launches, by service name, from
    ``(name, componentType, main container)``: what a graph without ``backendFramework`` gives
    every component it generates when they agree (upstream's
    ``backendFrameworkForGeneratedDCDs``; other types and workers launching none or several are
    left out)."""
    found: dict[str, BackendFramework] = {}
    for name, component_type, container in services:
        if component_type not in WORKER_LIKE_COMPONENT_TYPES:
            continue
        launched = launched_backends(container)
        if len(launched) == 1:
            found[name] = next(iter(launched))
    return found


def _strings(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []
