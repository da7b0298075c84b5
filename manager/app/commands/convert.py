"""``dynamo-operator convert``: rewrite Dynamo documents at another API version, like
``kubectl convert``.

Every DynamoGraphDeployment, DynamoComponentDeployment and DynamoGraphDeploymentScalingAdapter of
the files is converted to ``--to`` exactly as the conversion webhook converts it for the API server
(lossless: what the target version cannot say travels in an annotation and comes back when the
document is converted again); one already at that version is written as it is. Every other
document (a ConfigMap, a DynamoModel, which has one version only) is passed through unchanged, in
its place, so a whole ``kubectl apply`` bundle converts in one go.

The converted stream goes to stdout (multi-document YAML, or a JSON list with ``-o json``) and
nothing else does. Problems go to stderr, one line each, naming the document and the field
(``<file>#<n> (<Kind>/<name>): <field>: <reason>``); then nothing is printed, so a pipe into
``kubectl apply -f -`` never applies half a bundle. Exit code 0 when every document converted, 1
when any cannot be converted, 2 on unusable input (unreadable file, not YAML, a document that is not
an object).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dynamo_operator.api import API_VERSION, BETA_API_VERSION, GROUP
from dynamo_operator.conversion import ConversionError, convert
from dynamo_operator.crd import CONVERTIBLE_RESOURCES
from dynamo_operator.validation import UnknownKindError, describe, validate_manifest
from manager.app.commands.documents import (
    EXIT_BAD_INPUT,
    EXIT_INVALID,
    MALFORMED_REASONS,
    STDIN,
    SourcedDocument,
    add_filename_argument,
    load_file,
    printable,
)
from manager.app.commands.errors import BadInputError
from manager.app.commands.output import dump_objects

TARGETS = {
    version.removeprefix(f"{GROUP}/"): version for version in (API_VERSION, BETA_API_VERSION)
}
CONVERTIBLE_KINDS = frozenset(resource.kind for resource in CONVERTIBLE_RESOURCES)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "convert",
        help="convert Dynamo manifests to another API version",
        description=(
            "Convert the DynamoGraphDeployment, DynamoComponentDeployment and "
            "DynamoGraphDeploymentScalingAdapter documents of the files to --to, as the "
            "conversion webhook does; other documents pass through unchanged. Exit code 0 when "
            "every document converted, 1 when any cannot be, 2 on unusable input."
        ),
    )
    parser.add_argument(
        "--to",
        required=True,
        choices=sorted(TARGETS),
        help="the nvidia.com version to write",
    )
    add_filename_argument(parser)
    parser.add_argument("-o", "--output", choices=["yaml", "json"], default="yaml")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    target = TARGETS[args.to]
    converted: list[Any] = []
    bad_input = failed = 0
    for path in args.files:
        name = "<stdin>" if path == STDIN else path
        try:
            documents = load_file(path)
        except BadInputError as error:
            _diagnose(f"{name}: {error}")
            bad_input += 1
            continue
        for index, document in enumerate(documents, start=1):
            if not isinstance(document, dict):
                _diagnose(f"{name}#{index}: a document must be a mapping (an object)")
                bad_input += 1
                continue
            sourced = SourcedDocument(f"{name}#{index}", document)
            try:
                converted.append(convert_document(sourced, target))
            except ConversionError as error:
                _diagnose(f"{sourced.label}: {error}")
                failed += 1
            except MalformedDocumentError as error:
                for problem in error.problems:
                    _diagnose(f"{sourced.label}: {problem}")
                failed += 1
    if bad_input:
        return EXIT_BAD_INPUT
    if failed:
        return EXIT_INVALID
    sys.stdout.write(dump_objects(converted, args.output))
    return 0


class MalformedDocumentError(Exception):
    """A document that does not even parse at its own version: converting it would only move the
    damage (into the preservation annotation, where nobody sees it)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def convert_document(sourced: SourcedDocument, target: str) -> dict[str, Any]:
    """``sourced`` at ``target`` when it is one of the kinds served at both versions, else as it
    is; raises ConversionError naming the field that cannot be converted, or
    MalformedDocumentError naming each field that breaks the schema of the document's version."""
    document = sourced.document
    if sourced.kind not in CONVERTIBLE_KINDS or document.get("apiVersion") == target:
        return document
    api_version = document.get("apiVersion")
    if api_version not in TARGETS.values():
        raise ConversionError(
            "apiVersion",
            f"must be {API_VERSION} or {BETA_API_VERSION} (got {describe(api_version)})",
        )
    problems = _schema_problems(document)
    if problems:
        raise MalformedDocumentError(problems)
    return convert(document, target)


def _schema_problems(document: dict[str, Any]) -> list[str]:
    """What makes ``document`` unparsable at its version (wrong types, missing fields); the
    semantic rules are ``validate``'s business, not a converter's."""
    try:
        result = validate_manifest(document)
    except UnknownKindError:
        return []  # no rules for this kind (scaling adapters): the conversion alone decides
    return [str(issue) for issue in result.errors if issue.reason in MALFORMED_REASONS]


def _diagnose(line: str) -> None:
    print(printable(f"dynamo-operator convert: {line}"), file=sys.stderr)
