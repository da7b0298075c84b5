"""``dynamo-operator render``: print every object the operator would create, without a cluster.

Only the object stream goes to stdout so it can be piped into ``kubectl apply -f -``; warnings and
diagnostics go to stderr. Documents are validated first, exactly as the admission webhook would.
"""

from __future__ import annotations

import argparse
import sys
from typing import get_args

from dynamo_operator.render import RenderError, render_objects
from dynamo_operator.settings import ALL_OPTIONAL_APIS, OptionalApi
from manager.commands.documents import (
    EXIT_BAD_INPUT,
    EXIT_INVALID,
    BadInputError,
    SourcedDocument,
    add_filename_argument,
    check_document,
    load_documents,
    printable,
)
from manager.commands.operator_settings import (
    add_operator_settings_arguments,
    operator_settings_from_arguments,
)
from manager.commands.output import dump_objects

DEFAULT_NAMESPACE = "default"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "render",
        help="print the Kubernetes objects the operator would create",
        description=(
            "Render DynamoGraphDeployments and DynamoComponentDeployments into every object the "
            "operator creates (recursively), as on a cluster with LeaderWorkerSet, Volcano and "
            "Istio installed unless --without says otherwise. kubernetes.io/dockerconfigjson "
            "Secrets among the documents feed image pull secret discovery."
        ),
    )
    add_filename_argument(parser)
    parser.add_argument("-o", "--output", choices=["yaml", "json"], default="yaml")
    parser.add_argument(
        "-n", "--namespace", default=DEFAULT_NAMESPACE, help="namespace for objects that name none"
    )
    add_operator_settings_arguments(parser)
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        choices=sorted(get_args(OptionalApi)),
        help="render as on a cluster without this optional API (repeatable)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        documents = load_documents(args.files, args.namespace)
        invalid = _report_validation(documents)
    except BadInputError as error:
        _diagnose(str(error))
        return EXIT_BAD_INPUT
    if invalid:
        return EXIT_INVALID
    try:
        rendered = render_objects(
            [document.document for document in documents],
            operator_settings_from_arguments(args, ALL_OPTIONAL_APIS - frozenset(args.without)),
            default_namespace=args.namespace,
        )
    except RenderError as error:
        _diagnose(str(error))
        return EXIT_INVALID
    for warning in rendered.warnings:
        _diagnose(f"warning: {warning}")
    sys.stdout.write(dump_objects(rendered.objects, args.output))
    return 0


def _report_validation(documents: list[SourcedDocument]) -> bool:
    """Print issues to stderr; True when any document is invalid."""
    invalid = False
    for document in documents:
        if document.is_pull_secret():
            continue
        result = check_document(document)
        invalid |= not result.allowed
        for issue in result.errors:
            _diagnose(f"error: {document.label}: {issue}")
        for issue in result.warnings:
            _diagnose(f"warning: {document.label}: {issue}")
    return invalid


def _diagnose(line: str) -> None:
    print(printable(f"dynamo-operator render: {line}"), file=sys.stderr)
