"""Structured JSON logs with fixed keys, for the operator and the libraries under it.

Every line is one JSON object with `ts` (UTC, ISO 8601), `level`, `logger` and a constant `msg`;
variable data goes in keys (`controller`, `namespace`, `name`, `reconcileID`, `kind`, `op`, ...),
never into the message, so logs can be searched and aggregated by key. Libraries that log through
the standard `logging` module (aiohttp, httpx, kr8s) come out in the same format. A module gets
its logger one way, named after itself: `log = get_logger(__name__)`.

The renderer is chosen here, explicitly, never by what happens to be installed: structlog left
unconfigured renders exceptions with `rich` when it is importable, frames and locals included,
which blocked a webhook server's event loop for minutes on one deeply nested request. Exceptions
become plain traceback text (the last frames, each line cut), and every string value is cut to
`MAX_VALUE_LENGTH` characters, so no log line grows with the data that caused it. Every command
that logs (`run`, `webhook-server`) calls `configure_logging` first.

The reconcile context is kept in contextvars: `reconcile_context` binds it for the duration of one
reconcile, and every log call made inside (however deep, in any module) carries its keys. asyncio
copies contextvars into each new task, so concurrent workers never see each other's context.
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import structlog

__all__ = ["LOG_LEVELS", "MAX_VALUE_LENGTH", "configure_logging", "get_logger", "reconcile_context"]

MAX_VALUE_LENGTH = 8192

LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}

_TRACEBACK_FRAMES = 30
_TRACEBACK_LINE_LENGTH = 1000


def _plain_traceback(exc_info: structlog.typing.ExcInfo) -> str:
    """The last frames of a traceback as plain text, each line cut: the error's type and the
    place it was raised survive even a huge message; locals are never shown."""
    lines = traceback.format_exception(*exc_info, limit=-_TRACEBACK_FRAMES)
    return "".join(
        line if len(line) <= _TRACEBACK_LINE_LENGTH else line[:_TRACEBACK_LINE_LENGTH] + "...\n"
        for line in lines
    )


_SHARED_PROCESSORS: list[structlog.typing.Processor] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
    structlog.processors.StackInfoRenderer(),
    structlog.processors.ExceptionRenderer(_plain_traceback),
]


def _bounded_values(
    logger: Any, method_name: str, event_dict: structlog.typing.EventDict
) -> structlog.typing.EventDict:
    """Cut long strings (tracebacks keep their end, where the error is)."""
    for key, value in event_dict.items():
        if isinstance(value, str) and len(value) > MAX_VALUE_LENGTH:
            keep = MAX_VALUE_LENGTH - 40
            if key in ("exception", "stack"):
                event_dict[key] = f"...[{len(value) - keep} characters cut]..." + value[-keep:]
            else:
                event_dict[key] = value[:keep] + f"...[{len(value) - keep} characters cut]"
    return event_dict


def configure_logging(level: str = "info", *, stream: TextIO | None = None) -> None:
    """Send every log record (structlog and stdlib) to `stream` (stdout) as JSON lines."""
    if level not in LOG_LEVELS:
        raise ValueError(f"unknown log level {level!r}; expected one of {sorted(LOG_LEVELS)}")
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_SHARED_PROCESSORS,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            _bounded_values,
            structlog.processors.EventRenamer("msg"),
            structlog.processors.JSONRenderer(),
        ],
    )
    handler = logging.StreamHandler(stream or sys.stdout)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(LOG_LEVELS[level])
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *_SHARED_PROCESSORS,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )


def get_logger(name: str) -> Any:
    """A structlog logger whose records carry `logger=name`."""
    return structlog.get_logger(name)


@contextmanager
def reconcile_context(
    *, controller: str, namespace: str, name: str, reconcile_id: str
) -> Iterator[None]:
    """Bind the keys of one reconcile to every log call made inside the `with` block."""
    with structlog.contextvars.bound_contextvars(
        controller=controller, namespace=namespace, name=name, reconcileID=reconcile_id
    ):
        yield
