"""The ``dynamo-operator`` command line: an argparse root dispatching to one module per command.

Each module under ``manager.commands`` exposes ``register(subparsers)``, which adds its subparser
and sets ``func(args) -> int`` as the default; the exit code is what that function returns.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from manager.commands import crds, render, run, validate, version, webhook_server
from manager.commands.go_flags import normalize_go_arguments


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The root parser, and the subparsers whose flags follow Go's conventions by command."""
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
    go_style = {"run": run.register(subparsers)}
    return parser, go_style


def main(argv: Sequence[str] | None = None) -> int:
    parser, go_style = build_parser()
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] in go_style:
        arguments[1:] = normalize_go_arguments(arguments[1:], go_style[arguments[0]])
    args = parser.parse_args(arguments)
    exit_code: int = args.func(args)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
