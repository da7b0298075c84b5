"""Namespaces a test creates for itself and deletes afterwards."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import kr8s
from kr8s.objects import Namespace


@contextmanager
def scratch_namespace(api: kr8s.Api, prefix: str) -> Iterator[str]:
    """A new namespace named ``<prefix>-<random>`` (prefix made DNS-safe, at most 40 characters),
    deleted when the block ends, also when the test fails."""
    stem = "".join(c if c.isalnum() else "-" for c in prefix.lower())[:40].strip("-")
    name = f"{stem}-{uuid.uuid4().hex[:6]}"
    namespace = Namespace({"metadata": {"name": name}}, api=api)
    namespace.create()
    try:
        yield name
    finally:
        namespace.delete()
