"""Which backend a component runs: declared (``backendFramework``), else read off its command.

Upstream's own example graphs often leave ``backendFramework`` unset and launch
``python3 -m dynamo.vllm ...``. Every rule that depends on the backend (multinode wiring, probes of
multinode workers, the compilation-cache default) must see the same answer in validation, in
``render`` and in the reconciler, so the answer is computed here only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dynamo_operator.api.constants import BackendFramework

__all__ = ["effective_backend", "launched_backends"]

_LAUNCH_MODULE = re.compile(r"python[0-9.]*\s.*-m\s+dynamo\.(vllm|sglang|trtllm)\b")


def launched_backends(container: Mapping[str, Any] | None) -> frozenset[BackendFramework]:
    """Backends the container launches with ``python -m dynamo.<backend>`` (command and args,
    also inside ``sh -c "<script>"``)."""
    if not container:
        return frozenset()
    words = [*_strings(container.get("command")), *_strings(container.get("args"))]
    return frozenset(BackendFramework(match) for match in _LAUNCH_MODULE.findall(" ".join(words)))


def effective_backend(
    declared: str | None, container: Mapping[str, Any] | None
) -> BackendFramework | None:
    """The declared backend; else the one backend the container launches; else None (none or
    several launched: validation reports the latter)."""
    if declared:
        return BackendFramework(declared)
    launched = launched_backends(container)
    return next(iter(launched)) if len(launched) == 1 else None


def _strings(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []
