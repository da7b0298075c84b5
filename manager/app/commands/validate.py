"""``dynamo-operator validate``: report every error and warning of each document, by field path.

The verdicts go to stdout, one ``<file>#<n> (<Kind>/<name>): valid|invalid`` line per Dynamo
document followed by its issues; skipped documents and bad input go to stderr, one line each.
"""

from __future__ import annotations

import argparse
import sys

from manager.app.commands.documents import (
    add_filename_argument,
    format_issue,
    printable,
    screen_input,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check Dynamo manifests as the admission webhook would",
        description=(
            "Validate DynamoGraphDeployment, DynamoComponentDeployment and DynamoModel documents "
            "as kubectl apply and the admission webhook will answer them (a field the API does "
            "not define is an error), graphs and components at nvidia.com/v1alpha1 or "
            "nvidia.com/v1beta1, each issue at the field of the version written; documents of "
            "other kinds are named and skipped. Exit code 0 when all are valid, 1 when any is "
            "invalid, 2 on unusable input."
        ),
    )
    add_filename_argument(parser)
    parser.add_argument(
        "-n",
        "--namespace",
        help="namespace assumed for documents that name none (default: default)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    screened = screen_input(args.files, args.namespace)
    for line in screened.notices:
        print(printable(f"dynamo-operator validate: {line}"), file=sys.stderr)
    for checked in screened.checked:
        result = checked.result
        print(printable(f"{checked.document.label}: {'valid' if result.allowed else 'invalid'}"))
        for issue in result.errors:
            print(format_issue("error", issue))
        for issue in result.warnings:
            print(format_issue("warning", issue))
    return screened.exit_code
