"""The cache key of the operator image: a digest of everything its build reads.

``hack/image/build.sh`` reuses a built image archive while this key is unchanged, so the key must
cover every input: the Dockerfile, the ``.dockerignore``, every file the Dockerfile's ``COPY``
instructions read from the build context (found by reading the Dockerfile, so a new ``COPY`` is
covered without touching this file), and the caller's extra inputs (the base image's key, the
build script). Bytecode (``__pycache__``, ``*.pyc``) is skipped: ``.dockerignore`` keeps it out of
the context, and tests write it all the time. Hashing a superset of the context is safe (at worst
a needless rebuild); missing a file would not be, hence the whole trees under each source.

Usage: ``python3 hack/image/context_key.py CONTEXT_DIR DOCKERFILE [EXTRA ...]`` prints the key.
Standard library only: it runs with whatever python3 the machine has.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

SKIPPED_DIRS = frozenset({"__pycache__"})
SKIPPED_SUFFIXES = (".pyc",)


def logical_lines(dockerfile: str) -> Iterator[str]:
    """The Dockerfile's instructions, one per item: continuations joined, comments dropped."""
    pending: list[str] = []
    for raw in dockerfile.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            pending.append(line[:-1].strip())
            continue
        pending.append(line)
        yield " ".join(part for part in pending if part)
        pending = []
    if pending:
        yield " ".join(part for part in pending if part)


def copy_sources(dockerfile: str) -> list[str]:
    """The build-context paths read by COPY and ADD (not ``COPY --from=<stage>``), in order.

    Both forms are understood: ``COPY [--flag ...] SRC... DEST`` and the JSON array form.
    """
    sources: list[str] = []
    for line in logical_lines(dockerfile):
        keyword, _, rest = line.partition(" ")
        if keyword.upper() not in ("COPY", "ADD"):
            continue
        arguments = _instruction_arguments(rest.strip())
        flags = [a for a in arguments if a.startswith("--")]
        if any(flag.startswith("--from=") for flag in flags):
            continue
        paths = [a for a in arguments if not a.startswith("--")]
        if len(paths) < 2:
            raise ValueError(f"not a COPY with a source and a destination: {line!r}")
        sources.extend(_normalise(source) for source in paths[:-1])
    return sources


def _instruction_arguments(rest: str) -> list[str]:
    flags: list[str] = []
    while rest.startswith("--"):
        flag, _, rest = rest.partition(" ")
        flags.append(flag)
        rest = rest.strip()
    if rest.startswith("["):
        parsed = json.loads(rest)
        if not isinstance(parsed, list) or not all(isinstance(p, str) for p in parsed):
            raise ValueError(f"not a JSON array of strings: {rest!r}")
        return flags + parsed
    return flags + shlex.split(rest)


def _normalise(source: str) -> str:
    if any(char in source for char in "*?["):
        raise ValueError(f"wildcard COPY sources are not supported by the cache key: {source!r}")
    path = source.strip("/") or "."
    if path == ".." or path.startswith("../"):
        raise ValueError(f"COPY source outside the build context: {source!r}")
    return path


def is_skipped(relative: Path) -> bool:
    """Bytecode that the .dockerignore keeps out of the context."""
    return any(part in SKIPPED_DIRS for part in relative.parts) or relative.name.endswith(
        SKIPPED_SUFFIXES
    )


def context_files(context: Path, sources: Iterable[str]) -> list[Path]:
    """Every file under each source (a file or a directory), relative to the context, sorted."""
    files: set[Path] = set()
    for source in sources:
        path = context / source
        if path.is_file():
            files.add(path.relative_to(context))
        elif path.is_dir():
            files.update(
                child.relative_to(context)
                for child in path.rglob("*")
                if child.is_file() and not is_skipped(child.relative_to(context))
            )
        else:
            raise FileNotFoundError(f"COPY source missing from the build context: {source}")
    return sorted(files)


def digest(entries: Iterable[tuple[str, bytes]]) -> str:
    """sha256 over (name, content) pairs, framed so that no two different inputs collide."""
    hasher = hashlib.sha256()
    for name, content in entries:
        encoded = name.encode()
        hasher.update(len(encoded).to_bytes(8, "big") + encoded)
        hasher.update(len(content).to_bytes(8, "big") + content)
    return hasher.hexdigest()


def image_key(context: Path, dockerfile: Path, extras: Iterable[str] = ()) -> str:
    """The key of an image built from ``dockerfile`` over ``context`` (16 hex digits)."""
    text = dockerfile.read_text()
    ignore = context / ".dockerignore"
    entries: list[tuple[str, bytes]] = [("Dockerfile", text.encode())]
    entries.append((".dockerignore", ignore.read_bytes() if ignore.is_file() else b""))
    entries.extend(
        (f"context/{path.as_posix()}", (context / path).read_bytes())
        for path in context_files(context, copy_sources(text))
    )
    entries.extend((f"extra/{index}", extra.encode()) for index, extra in enumerate(extras))
    return digest(entries)[:16]


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    context, dockerfile, *extras = argv
    print(image_key(Path(context), Path(dockerfile), extras))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
