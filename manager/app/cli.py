"""The ``dynamo-operator`` command line: an argparse root dispatching to one module per command.

Each module under ``manager.app.commands`` exposes ``register(subparsers)``, which adds its
subparser and sets ``func(args) -> int`` as the default; the exit code is what that function
returns.

Only the module of the command being run is imported: ``version`` must not pay for the operator
(kr8s, aiohttp, the reconcilers) nor ``validate`` for the webhook server, which matters in GitOps
loops that run ``validate`` on every file. The other commands are listed with their one-line help
from ``COMMANDS`` (a test keeps it equal to what each module registers).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Command:
    module: str
    help: str
    go_flags: bool = False
    """Flags follow Go's conventions (``run`` keeps the upstream operator's spellings)."""


COMMANDS: dict[str, Command] = {
    "render": Command(
        "manager.app.commands.render", "print the Kubernetes objects the operator would create"
    ),
    "validate": Command(
        "manager.app.commands.validate", "check Dynamo manifests as the admission webhook would"
    ),
    "convert": Command(
        "manager.app.commands.convert", "convert Dynamo manifests to another API version"
    ),
    "crds": Command(
        "manager.app.commands.crds", "print the CustomResourceDefinitions of the Dynamo kinds"
    ),
    "version": Command("manager.app.commands.version", "print the version"),
    "webhook-server": Command(
        "manager.app.commands.webhook_server",
        "serve the validating admission webhooks without a Kubernetes connection",
    ),
    "run": Command(
        "manager.app.commands.run",
        "run the operator: reconcilers, admission webhooks, health probes and metrics",
        go_flags=True,
    ),
}


def build_parser(
    commands: Collection[str] | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The root parser with ``commands`` (default: all) fully registered, their modules imported,
    and every other command listed by name and help only; also the subparsers of the registered
    commands whose flags follow Go's conventions, by command."""
    parser = argparse.ArgumentParser(
        prog="dynamo-operator",
        description="Kubernetes operator for NVIDIA Dynamo inference graphs.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    go_style: dict[str, argparse.ArgumentParser] = {}
    for name, command in COMMANDS.items():
        if commands is not None and name not in commands:
            subparsers.add_parser(name, help=command.help, add_help=False)
            continue
        importlib.import_module(command.module).register(subparsers)
        if command.go_flags:
            go_style[name] = subparsers.choices[name]
    return parser, go_style


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = arguments[:1] if arguments and arguments[0] in COMMANDS else []
    parser, go_style = build_parser(command)
    if command and command[0] in go_style:
        from manager.app.commands.go_flags import normalize_go_arguments

        arguments[1:] = normalize_go_arguments(arguments[1:], go_style[command[0]])
    args = parser.parse_args(arguments)
    exit_code: int = args.func(args)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
