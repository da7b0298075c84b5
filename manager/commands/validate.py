"""``dynamo-operator validate``: report every error and warning of each document, by field path."""

from __future__ import annotations

import argparse
import sys

from manager.commands.documents import (
    EXIT_BAD_INPUT,
    EXIT_INVALID,
    BadInputError,
    add_filename_argument,
    check_document,
    format_issue,
    load_documents,
    printable,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check Dynamo manifests as the admission webhook would",
        description=(
            "Validate DynamoGraphDeployment, DynamoComponentDeployment and DynamoModel documents. "
            "Exit code 0 when all are valid, 1 when any is invalid, 2 on unusable input."
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
    try:
        documents = load_documents(args.files, args.namespace)
        results = [
            (document, check_document(document))
            for document in documents
            if not document.is_pull_secret()
        ]
    except BadInputError as error:
        print(printable(f"dynamo-operator validate: {error}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    any_invalid = False
    for document, result in results:
        any_invalid |= not result.allowed
        print(printable(f"{document.label}: {'valid' if result.allowed else 'invalid'}"))
        for issue in result.errors:
            print(format_issue("error", issue))
        for issue in result.warnings:
            print(format_issue("warning", issue))
    return EXIT_INVALID if any_invalid else 0
