"""The ``dynamo-operator`` command line: an argparse root dispatching to one module per command.

Each module under ``manager.commands`` exposes ``register(subparsers)``, which adds its subparser
and sets ``func(args) -> int`` as the default; the exit code is what that function returns.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from manager.commands import crds, render, validate, version, webhook_server


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dynamo-operator",
        description="Kubernetes operator for NVIDIA Dynamo inference graphs.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    render.register(subparsers)
    validate.register(subparsers)
    crds.register(subparsers)
    version.register(subparsers)
    webhook_server.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    exit_code: int = args.func(args)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
