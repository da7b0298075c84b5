"""Reading the documents of ``render`` and ``validate`` and sorting out what to do with each.

A file may be a whole ``kubectl apply`` bundle: ConfigMaps, PVCs or ResourceClaimTemplates beside
the graph. Each of its documents is
- a Dynamo document (DynamoGraphDeployment, DynamoComponentDeployment, DynamoModel): checked as
  ``kubectl apply`` will fare with it (``validate_manifest``: a field the CRD does not keep is an
  error, as the API server answers it), at the version it is written at (graphs and components at
  nvidia.com/v1alpha1 or nvidia.com/v1beta1, with the paths of that version);
- a ``kubernetes.io/dockerconfigjson`` Secret: it feeds ``render``'s pull-secret discovery;
- any other Kubernetes object: named on stderr and skipped, one line each, not an error;
- or bad input: not an object, not even a Kubernetes object (apiVersion, kind and metadata.name
  strings), or a Dynamo document that does not parse into its model.
The file itself is bad input when it cannot be read, is not YAML, exceeds the limits of
``yaml_input``, or holds no Dynamo document at all (almost always a wrong path or a failed
generator upstream, which a silent success would hide).

Every problem is one line naming the file or the document and the field, and none hides another:
each file and each document is checked whatever the others hold. Exit code 2 when any input is
bad, else 1 when any document is invalid, else 0. Never a traceback.
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dynamo_operator.api import (
    API_VERSION,
    KIND_COMPONENT_DEPLOYMENT,
    KIND_GRAPH_DEPLOYMENT,
    KIND_MODEL,
)
from dynamo_operator.conversion import convert
from dynamo_operator.pull_secrets import is_docker_config_secret
from dynamo_operator.validation import (
    FieldIssue,
    IssueReason,
    ValidationResult,
    describe,
    validate_manifest,
)
from manager.app.commands.errors import BadInputError, YamlInputError
from manager.app.commands.yaml_input import (
    MAX_FILE_BYTES,
    load_yaml_documents,
)

STDIN = "-"
EXIT_INVALID = 1
EXIT_BAD_INPUT = 2

DYNAMO_KINDS = (KIND_GRAPH_DEPLOYMENT, KIND_COMPONENT_DEPLOYMENT, KIND_MODEL)

MALFORMED_REASONS = frozenset(
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
        shown_name = name if isinstance(name, str) and name else "<unnamed>"
        return f"{self.source} ({self.kind or '<no kind>'}/{shown_name})"


@dataclass(frozen=True, slots=True)
class CheckedDocument:
    document: SourcedDocument
    result: ValidationResult


@dataclass(slots=True)
class ScreenedInput:
    """Every document of every file, sorted by what the commands do with it."""

    checked: list[CheckedDocument] = field(default_factory=list)
    """The Dynamo documents that parse, in input order, each with its validation."""
    pull_secrets: list[SourcedDocument] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    """Lines for stderr, in input order: skipped documents and bad input."""
    bad_input_count: int = 0

    @property
    def exit_code(self) -> int:
        if self.bad_input_count:
            return EXIT_BAD_INPUT
        return EXIT_INVALID if any(not c.result.allowed for c in self.checked) else 0

    def renderable(self) -> list[dict[str, Any]]:
        """What ``render_objects`` takes: the Dynamo documents at v1alpha1, the version the
        operator reconciles (a v1beta1 one converted as the API server would store it), and the
        pull secrets. Call it once every document is valid: a v1beta1 document that does not
        convert is invalid, and raises ``ConversionError`` here."""
        return [_at_storage_version(c.document.document) for c in self.checked] + [
            secret.document for secret in self.pull_secrets
        ]

    def reject(self, where: str, problems: Sequence[str]) -> None:
        """One unusable file or document: a line per problem."""
        self.notices.extend(f"{where}: {problem}" for problem in problems)
        self.bad_input_count += 1

    @property
    def accepted_count(self) -> int:
        return len(self.checked) + len(self.pull_secrets)


def screen_input(paths: Sequence[str], default_namespace: str | None = None) -> ScreenedInput:
    """Read, sort and check every document of every file; ``-`` reads stdin.

    With ``default_namespace``, documents without a namespace get it, so that names derived from
    the namespace are validated as they will be rendered.
    """
    screened = ScreenedInput()
    for path in paths:
        _screen_file(path, default_namespace, screened)
    return screened


def _screen_file(path: str, namespace: str | None, screened: ScreenedInput) -> None:
    name = "<stdin>" if path == STDIN else path
    try:
        documents = load_file(path)
    except BadInputError as error:
        screened.reject(name, [str(error)])
        return
    accepted_before, rejected_before = screened.accepted_count, screened.bad_input_count
    for index, document in enumerate(documents, start=1):
        _screen_document(f"{name}#{index}", document, namespace, screened)
    # A file whose own documents were bad already says why; one that merely holds other kinds
    # (a ConfigMap alone) is the wrong file, and a silent success would hide it.
    if screened.accepted_count == accepted_before and screened.bad_input_count == rejected_before:
        kinds = ", ".join(DYNAMO_KINDS)
        screened.reject(
            name, [f"no Dynamo document ({kinds}) among its {len(documents)} document(s)"]
        )


def _screen_document(
    source: str, document: object, namespace: str | None, screened: ScreenedInput
) -> None:
    if not isinstance(document, dict):
        screened.reject(source, ["a document must be a mapping (an object)"])
        return
    sourced = SourcedDocument(source, _with_namespace(document, namespace))
    if sourced.kind in DYNAMO_KINDS:
        result = validate_manifest(sourced.document)
        if any(issue.reason in MALFORMED_REASONS for issue in result.errors):
            # It does not even parse into its model: every error it has, as bad input.
            screened.reject(sourced.label, [str(issue) for issue in result.errors])
        else:
            screened.checked.append(CheckedDocument(sourced, result))
        return
    problems = _kubernetes_object_problems(document)
    if problems:
        screened.reject(sourced.label, problems)
    elif is_docker_config_secret(document):
        screened.pull_secrets.append(sourced)
    else:
        screened.notices.append(f"{sourced.label}: skipped: not a Dynamo kind")


def _kubernetes_object_problems(document: Mapping[str, Any]) -> list[str]:
    """What keeps ``document`` from being a Kubernetes object ``kubectl apply`` can send."""
    problems = [_string_problem(document, name, name) for name in ("apiVersion", "kind")]
    metadata = document.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        problems.append(f"metadata: must be an object (got {describe(metadata)})")
    else:
        problems.append(_string_problem(metadata or {}, "name", "metadata.name"))
    return [problem for problem in problems if problem]


def _string_problem(parent: Mapping[str, Any], key: str, path: str) -> str:
    value = parent.get(key)
    if value is None:
        return f"{path}: required field is missing"
    if not isinstance(value, str) or not value:
        return f"{path}: must be a non-empty string (got {describe(value)})"
    return ""


def format_issue(severity: str, issue: FieldIssue) -> str:
    return printable(f"  {severity}: {issue}")


def printable(line: str) -> str:
    """``line`` with control characters escaped (``\\r``, ``\\x1b``): names and values come from
    the input, and a carriage return or an escape sequence in one must not split or forge the
    one line a message is, nor drive the terminal."""
    if line.isprintable():
        return line
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in line)


def load_file(path: str) -> list[Any]:
    """The non-empty documents of one file, as JSON values."""
    try:
        data = _read_stdin() if path == STDIN else _read_file(path)
        if len(data) > MAX_FILE_BYTES:
            raise BadInputError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        text = data if isinstance(data, str) else data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BadInputError(f"cannot read: {_one_line(error)}") from None
    try:
        documents = load_yaml_documents(text)
    except YamlInputError as error:
        raise BadInputError(f"not valid YAML: {error}") from None
    if not documents:
        raise BadInputError("no YAML document in the input")
    return documents


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


def _at_storage_version(document: dict[str, Any]) -> dict[str, Any]:
    if document.get("apiVersion") in (API_VERSION, None):
        return document
    return convert(document, API_VERSION)


def _with_namespace(document: dict[str, Any], namespace: str | None) -> dict[str, Any]:
    metadata = document.get("metadata")
    if namespace is None or not isinstance(metadata, dict) or metadata.get("namespace"):
        return document
    placed = copy.copy(document)
    placed["metadata"] = {**metadata, "namespace": namespace}
    return placed


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
