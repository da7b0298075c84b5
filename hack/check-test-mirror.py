#!/usr/bin/env python3
"""Check that the unit tests mirror the source tree.

Usage: hack/check-test-mirror.py

``tests/<tree>/<path>/test_<name>.py`` (for the trees ``dynamo_operator``, ``manager``, ``webhooks``
and ``e2e``, whose packages are the harness) tests ``<tree>/<path>/<name>.py`` or the package
``<tree>/<path>/<name>/``. A
suffix after the name says which side of it the file tests (``test_render_fuzz.py`` tests
``render.py``, ``test_directory_mounted_secret.py`` tests ``directory.py``): the longest
``_``-separated prefix that names a module or package is the one tested. A test file that
mirrors nothing (its module was moved, renamed or deleted) is listed, and the exit status is 1.
Helpers beside the tests (``conftest.py``, ``fakes.py``...) are not test files and are not
checked; the tests directly under ``tests/`` are about the whole tree.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE_TREES = ("dynamo_operator", "manager", "webhooks", "e2e")


def tested_source(test_file: Path, root: Path) -> Path | None:
    """The module or package `test_file` (relative to `tests/`) mirrors, or None."""
    directory = root / test_file.parent
    words = test_file.stem.removeprefix("test_").split("_")
    for end in range(len(words), 0, -1):
        name = "_".join(words[:end])
        for candidate in (directory / f"{name}.py", directory / name / "__init__.py"):
            if candidate.is_file():
                return candidate.relative_to(root)
    return None


def unmirrored(root: Path) -> list[Path]:
    tests = root / "tests"
    return [
        path.relative_to(tests)
        for tree in SOURCE_TREES
        for path in sorted((tests / tree).rglob("test_*.py"))
        if tested_source(path.relative_to(tests), root) is None
    ]


def main() -> int:
    missing = unmirrored(ROOT)
    for path in missing:
        print(f"tests/{path}: no module or package {path.parent}/{path.stem[5:]}(.py) to test")
    if missing:
        print(f"{len(missing)} test file(s) mirror no source: move or rename them with it")
        return 1
    print("every test file mirrors a source module or package")
    return 0


if __name__ == "__main__":
    sys.exit(main())
