#!/usr/bin/env python3
"""Warn about product modules grown past what one concept needs.

Usage: hack/check-module-sizes.py [--warn-over LINES] [--fail-over LINES]

ARCHITECTURE.md aims for modules of about 300 lines and a split well before 500. Every module of
``dynamo_operator``, ``manager`` and ``webhooks`` longer than ``--warn-over`` (400) lines is
listed as a warning; the exit status is 1 only when one is longer than ``--fail-over`` (off by
default), so CI shows the warning without failing on it. A summary per package (modules, median
and largest) follows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE_TREES = ("dynamo_operator", "manager", "webhooks")


def module_sizes(root: Path) -> dict[Path, int]:
    return {
        path.relative_to(root): len(path.read_text(encoding="utf-8").splitlines())
        for tree in SOURCE_TREES
        for path in sorted((root / tree).rglob("*.py"))
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warn-over", type=int, default=400, metavar="LINES")
    parser.add_argument("--fail-over", type=int, default=None, metavar="LINES")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    sizes = module_sizes(args.root)
    by_package: dict[Path, list[int]] = defaultdict(list)
    for path, lines in sizes.items():
        by_package[path.parent].append(lines)
    for package, lines in sorted(by_package.items()):
        print(
            f"{package}: {len(lines)} modules, median {statistics.median(lines):g}, "
            f"largest {max(lines)} lines"
        )
    too_long = {path: lines for path, lines in sizes.items() if lines > args.warn_over}
    for path, lines in sorted(too_long.items(), key=lambda item: -item[1]):
        print(f"warning: {path} has {lines} lines (over {args.warn_over}): split it by concept")
    if not too_long:
        print(f"no module over {args.warn_over} lines")
    failing = args.fail_over is not None and any(n > args.fail_over for n in sizes.values())
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
