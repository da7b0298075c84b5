"""Durations written the way Go's ``time.ParseDuration`` reads them (``90s``, ``1h30m``, ``1.5h``).

The upstream operator stored ``imageBuildTimeout`` as a Go duration string, so manifests written for
it say ``imageBuildTimeout: 30m``; this module reads exactly that syntax so they keep working.
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal, InvalidOperation

_UNIT_SECONDS: dict[str, Decimal] = {
    "ns": Decimal("1e-9"),
    "us": Decimal("1e-6"),
    "µs": Decimal("1e-6"),
    "μs": Decimal("1e-6"),
    "ms": Decimal("1e-3"),
    "s": Decimal(1),
    "m": Decimal(60),
    "h": Decimal(3600),
}
_TERM = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
DURATION_EXAMPLES = "such as 90s, 30m, 1h30m or 1.5h"


class InvalidDurationError(ValueError):
    """The text is not a Go duration."""


def parse_duration(text: str) -> timedelta:
    """The duration ``text`` names: a sign, then one or more ``<number><unit>`` terms with units
    ns, us, ms, s, m and h; ``0`` alone is zero. Raises InvalidDurationError otherwise."""
    body = text.strip()
    negative = body.startswith("-")
    body = body[1:] if body[:1] in "+-" else body
    if body == "0":
        return timedelta(0)
    if not body:
        raise InvalidDurationError(f"{text!r} is not a duration {DURATION_EXAMPLES}")
    seconds = Decimal(0)
    position = 0
    while position < len(body):
        match = _TERM.match(body, position)
        if match is None:
            raise InvalidDurationError(f"{text!r} is not a duration {DURATION_EXAMPLES}")
        try:
            seconds += Decimal(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        except InvalidOperation as error:  # pragma: no cover - the pattern admits only numbers
            raise InvalidDurationError(f"{text!r} has a malformed number") from error
        position = match.end()
    if seconds > Decimal(timedelta.max.total_seconds()):
        raise InvalidDurationError(f"{text!r} is too long a duration")
    duration = timedelta(seconds=float(seconds))
    return -duration if negative else duration


def positive_duration(text: str) -> timedelta:
    """A duration of more than zero; InvalidDurationError otherwise."""
    duration = parse_duration(text)
    if duration <= timedelta(0):
        raise InvalidDurationError(f"{text!r} must be more than zero")
    return duration


def format_duration(duration: timedelta) -> str:
    """A duration as Go prints the whole-second ones: ``1h30m0s``, ``45s``."""
    total = int(duration.total_seconds())
    sign, total = ("-", -total) if total < 0 else ("", total)
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{sign}{hours}h{minutes}m{seconds}s"
    if minutes:
        return f"{sign}{minutes}m{seconds}s"
    return f"{sign}{seconds}s"
