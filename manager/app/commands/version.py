"""``dynamo-operator version``: print the installed version."""

from __future__ import annotations

import argparse
from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "dynamo-operator"


def installed_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("version", help="print the version")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print(f"{DISTRIBUTION} {installed_version()}")
    return 0
