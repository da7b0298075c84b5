"""Reading YAML documents for ``render`` and ``validate``, and screening out bad input.

Bad input (unreadable file, not YAML, beyond the limits of ``yaml_input``, no document at all, not
an object, unknown kind, a document that does not parse into its model) is reported as one line
naming the file or document and the field, with exit code 2; a well-formed document that breaks a
rule is merely invalid (exit code 1). Either way: no traceback.
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dynamo_operator.pull_secrets import is_docker_config_secret
from dynamo_operator.validation import (
    FieldIssue,
    IssueReason,
    UnknownKindError,
    ValidationResult,
    describe,
    validate_create,
)
from manager.commands.yaml_input import MAX_FILE_BYTES, YamlInputError, load_yaml_documents

STDIN = "-"
EXIT_INVALID = 1
EXIT_BAD_INPUT = 2

_MALFORMED_REASONS = frozenset(
    {IssueReason.MISSING_REQUIRED_FIELD, IssueReason.INVALID_TYPE, IssueReason.MALFORMED_OBJECT}
)


def add_filename_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-f",
        "--filename",
        dest="files",
        action="append",
        required=True,
        metavar="FILE",
        help="YAML file with one or more documents; '-' reads stdin (repeatable)",
    )


class BadInputError(Exception):
    """Input the commands cannot work with; the message is the one line shown to the user."""


@dataclass(frozen=True, slots=True)
class SourcedDocument:
    source: str
    """Where the document came from: ``<file>#<index from 1>`` (``<stdin>#1`` for ``-``)."""
    document: dict[str, Any]

    @property
    def kind(self) -> str:
        kind = self.document.get("kind")
        return kind if isinstance(kind, str) else ""

    @property
    def label(self) -> str:
        """``<file>#<n> (<Kind>/<name>)``: enough to find the document again."""
        metadata = self.document.get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        return f"{self.source} ({self.kind or '<no kind>'}/{name or '<unnamed>'})"

    def is_pull_secret(self) -> bool:
        return is_docker_config_secret(self.document)


def load_documents(
    paths: Sequence[str], default_namespace: str | None = None
) -> list[SourcedDocument]:
    """Every non-empty YAML document of every file, in order; ``-`` reads stdin.

    A file without any document (empty, comments only, only ``---``) is bad input: it is almost
    always a wrong path or a failed generator upstream, which a silent success would hide.
    With ``default_namespace``, documents without a namespace get it, so that names derived from
    the namespace are validated as they will be rendered.
    """
    documents: list[SourcedDocument] = []
    for path in paths:
        name, text = _read(path)
        try:
            parsed = load_yaml_documents(text)
        except YamlInputError as error:
            raise BadInputError(f"{name}: not valid YAML: {error}") from None
        if not parsed:
            raise BadInputError(f"{name}: no YAML document in the input")
        for index, document in enumerate(parsed, start=1):
            source = f"{name}#{index}"
            if not isinstance(document, dict):
                raise BadInputError(f"{source}: a document must be a mapping (an object)")
            documents.append(SourcedDocument(source, _with_namespace(document, default_namespace)))
    return documents


def check_document(document: SourcedDocument) -> ValidationResult:
    """Validate one Dynamo document; raise BadInputError when it is not even well-formed."""
    try:
        result = validate_create(document.document)
    except UnknownKindError:
        raise BadInputError(
            f"{document.label}: kind: unsupported kind {describe(document.document.get('kind'))}; "
            "expected DynamoGraphDeployment, DynamoComponentDeployment or DynamoModel"
        ) from None
    malformed = [issue for issue in result.errors if issue.reason in _MALFORMED_REASONS]
    if malformed:
        raise BadInputError(f"{document.label}: {'; '.join(map(str, malformed))}")
    return result


def format_issue(severity: str, issue: FieldIssue) -> str:
    return printable(f"  {severity}: {issue}")


def printable(line: str) -> str:
    """``line`` with control characters escaped (``\\r``, ``\\x1b``): names and values come from
    the input, and a carriage return or an escape sequence in one must not split or forge the
    one line a message is, nor drive the terminal."""
    if line.isprintable():
        return line
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in line)


def _read(path: str) -> tuple[str, str]:
    name = "<stdin>" if path == STDIN else path
    try:
        data = _read_stdin() if path == STDIN else _read_file(path)
        if len(data) > MAX_FILE_BYTES:
            raise BadInputError(f"{name}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        return name, data if isinstance(data, str) else data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BadInputError(f"{name}: cannot read: {_one_line(error)}") from None


def _read_file(path: str) -> bytes:
    # One byte more than the limit tells a file at the limit from a larger one, without reading
    # a huge (or endless: /dev/zero) input to the end.
    with open(path, "rb") as file:
        return file.read(MAX_FILE_BYTES + 1)


def _read_stdin() -> bytes | str:
    binary = getattr(sys.stdin, "buffer", None)
    return (
        binary.read(MAX_FILE_BYTES + 1)
        if binary is not None
        else sys.stdin.read(MAX_FILE_BYTES + 1)
    )


def _with_namespace(document: dict[str, Any], namespace: str | None) -> dict[str, Any]:
    metadata = document.get("metadata")
    if namespace is None or not isinstance(metadata, dict) or metadata.get("namespace"):
        return document
    placed = copy.copy(document)
    placed["metadata"] = {**metadata, "namespace": namespace}
    return placed


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
