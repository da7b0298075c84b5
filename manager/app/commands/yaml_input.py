"""Reading YAML the way the API server reads the JSON it becomes: bounded, strict, JSON values only.

Three threats and one principle. A YAML file is small but its aliases can expand it without bound
(a 590-byte "billion laughs" file), its nesting can exhaust the interpreter's stack, and a
recursive alias (``&a [*a]``) makes a cyclic structure that no walk ends on. So a first pass over
the parser's events (iterative, cheap, libyaml when present) measures each document as if every
alias were expanded, and refuses it when it nests deeper than ``MAX_NESTING_DEPTH``, holds more
than ``MAX_DOCUMENT_VALUES`` values, or refers to an anchor still open; the file as a whole may
hold ``MAX_FILE_VALUES`` values and ``MAX_FILE_BYTES`` bytes. Only then is it constructed.

The principle: what ``kubectl`` would send the API server is JSON, so a document must become JSON.
Timestamps, ``=`` and base-60 numbers (``8080:80``) stay strings, as kubectl reads them;
``!!binary`` must be UTF-8 text; ``!!set``/``!!omap``/``!!pairs`` and non-finite numbers are
refused; scalar keys become strings; and a key given twice in one mapping is an error (the API
server's strict decoding rejects duplicate fields; last-wins would silently drop what the user
wrote first).
Every refusal is a ``YamlInputError`` whose message names the line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode

from dynamo_operator.validation import MAX_NESTING_DEPTH
from manager.app.commands.errors import YamlInputError

__all__ = [
    "MAX_DOCUMENT_VALUES",
    "MAX_FILE_BYTES",
    "MAX_FILE_VALUES",
    "load_yaml_documents",
]

# A Kubernetes object is at most 1.5 MiB in etcd; a real graph holds a few thousand values.
MAX_DOCUMENT_VALUES = 100_000
MAX_FILE_VALUES = 1_000_000
MAX_FILE_BYTES = 16 * 1024 * 1024

_YAML_TAG = "tag:yaml.org,2002:"
_MERGE_TAG = _YAML_TAG + "merge"
# Implicit types JSON has (plus merge keys, which kubectl's YAML library also honours).
_KEPT_RESOLVERS = frozenset(_YAML_TAG + name for name in ("null", "bool", "merge"))
# PyYAML's YAML 1.1 numbers without base 60: kubectl reads `8080:80` as a string, PyYAML as 484880.
_INT = re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"
)
_FLOAT = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


def load_yaml_documents(text: str) -> list[Any]:
    """The non-empty documents of a YAML stream, as JSON values (dict, list, str, int, float,
    bool, None), with no shared or cyclic parts."""
    if len(text) > MAX_FILE_BYTES:
        raise YamlInputError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    try:
        _check_shape(yaml.parse(text, Loader=_StrictLoader))
        documents = list(yaml.load_all(text, Loader=_StrictLoader))
    except yaml.MarkedYAMLError as error:
        raise YamlInputError(_describe(error)) from None
    except yaml.YAMLError as error:
        raise YamlInputError(_one_line(str(error))) from None
    return [_json_value(document, "") for document in documents if document is not None]


# --- pass 1: the shape of every document, measured on the event stream -------------------------


@dataclass(slots=True)
class _Open:
    """A collection whose end event has not come yet."""

    anchor: str | None
    values_before: int  # the document's count when the collection started
    depth: int  # its own nesting level (the document's top collection is 1)
    deepest: int  # the deepest level reached inside it so far


def _check_shape(events: Iterator[yaml.Event]) -> None:
    file_values = 0
    document_values = 0
    opened: list[_Open] = []
    # anchor -> (values, levels) of the node it names, as if expanded.
    anchors: dict[str, tuple[int, int]] = {}

    def add(values: int, levels: int, event: yaml.Event) -> None:
        nonlocal file_values, document_values
        document_values += values
        file_values += values
        depth = len(opened) + levels
        if depth > MAX_NESTING_DEPTH:
            raise YamlInputError(f"nesting deeper than {MAX_NESTING_DEPTH} levels{_at(event)}")
        if opened:
            opened[-1].deepest = max(opened[-1].deepest, depth)
        if document_values > MAX_DOCUMENT_VALUES:
            raise YamlInputError(
                f"a document holds more than {MAX_DOCUMENT_VALUES} values once YAML aliases "
                f"are expanded{_at(event)}"
            )
        if file_values > MAX_FILE_VALUES:
            raise YamlInputError(
                f"the file holds more than {MAX_FILE_VALUES} values once YAML aliases are "
                f"expanded{_at(event)}"
            )

    for event in events:
        if isinstance(event, yaml.DocumentStartEvent):
            document_values = 0
            anchors.clear()  # anchors are local to their document
        elif isinstance(event, yaml.CollectionStartEvent):
            add(1, 1, event)
            depth = len(opened) + 1
            opened.append(_Open(event.anchor, document_values - 1, depth, depth))
        elif isinstance(event, yaml.CollectionEndEvent):
            node = opened.pop()
            if opened:
                opened[-1].deepest = max(opened[-1].deepest, node.deepest)
            if node.anchor is not None:
                levels = node.deepest - node.depth + 1
                anchors[node.anchor] = (document_values - node.values_before, levels)
        elif isinstance(event, yaml.ScalarEvent):
            add(1, 0, event)
            if event.anchor is not None:
                anchors[event.anchor] = (1, 0)
        elif isinstance(event, yaml.AliasEvent):
            if any(node.anchor == event.anchor for node in opened):
                raise YamlInputError(f"alias *{event.anchor} refers to itself{_at(event)}")
            if event.anchor not in anchors:
                raise YamlInputError(f"alias *{event.anchor} names no anchor{_at(event)}")
            add(*anchors[event.anchor], event)


# --- pass 2: construction, strict about what JSON cannot say -----------------------------------


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader (libyaml's parser when installed) with JSON's types only."""

    yaml_implicit_resolvers = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag in _KEPT_RESOLVERS]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    yaml_constructors = dict(SafeConstructor.yaml_constructors)

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[str, Any]:
        """Keys as the JSON strings they become, so that ``1`` and ``true`` stay apart (Python
        holds them equal); a key written twice is an error, one brought in by ``<<`` is not."""
        if not isinstance(node, MappingNode):
            raise ConstructorError(None, None, "expected a mapping", node.start_mark)
        written = {id(key_node) for key_node, _ in node.value if key_node.tag != _MERGE_TAG}
        self.flatten_mapping(node)  # merged pairs first, then the written ones, which win
        mapping: dict[str, Any] = {}
        first_seen: dict[str, yaml.Mark] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool | None):
                raise ConstructorError(
                    None, None, "a mapping key must be a scalar", key_node.start_mark
                )
            text = _key_text(key)
            if id(key_node) in written:
                if text in first_seen:
                    raise ConstructorError(
                        None,
                        None,
                        f"duplicate key {text!r} (first given on line {first_seen[text].line + 1})",
                        key_node.start_mark,
                    )
                first_seen[text] = key_node.start_mark
            mapping[text] = self.construct_object(value_node, deep=deep)
        return mapping


def _construct_checked(kind: str, construct: Any) -> Any:
    def constructor(loader: SafeConstructor, node: Node) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, TypeError, OverflowError, KeyError):
            raise ConstructorError(
                None, None, f"{_shown(node)} is not a valid {kind}", node.start_mark
            ) from None

    return constructor


def _construct_text(loader: SafeConstructor, node: Node) -> str:
    # JSON has no timestamps: kubectl sends dates as the strings the user wrote.
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


def _construct_binary(loader: SafeConstructor, node: Node) -> str:
    data = loader.construct_yaml_binary(node)  # type: ignore[arg-type]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConstructorError(
            None, None, "a !!binary value must decode to UTF-8 text", node.start_mark
        ) from None


def _refuse(tag: str) -> Any:
    def constructor(loader: SafeConstructor, node: Node) -> Any:
        raise ConstructorError(
            None, None, f"!!{tag} has no JSON equivalent; use a list or a map", node.start_mark
        )

    return constructor


_StrictLoader.add_constructor(
    _YAML_TAG + "int", _construct_checked("integer", SafeConstructor.construct_yaml_int)
)
_StrictLoader.add_constructor(
    _YAML_TAG + "float", _construct_checked("number", SafeConstructor.construct_yaml_float)
)
_StrictLoader.add_constructor(
    _YAML_TAG + "bool", _construct_checked("boolean", SafeConstructor.construct_yaml_bool)
)
_StrictLoader.add_implicit_resolver(_YAML_TAG + "int", _INT, list("-+0123456789"))
_StrictLoader.add_implicit_resolver(_YAML_TAG + "float", _FLOAT, list("-+0123456789."))
_StrictLoader.add_constructor(_YAML_TAG + "timestamp", _construct_text)
_StrictLoader.add_constructor(_YAML_TAG + "binary", _construct_binary)
for _tag in ("set", "omap", "pairs"):
    _StrictLoader.add_constructor(_YAML_TAG + _tag, _refuse(_tag))


def _json_value(value: Any, path: str) -> Any:
    """A fresh JSON tree (aliases copied, so no part is shared), with every number finite."""
    if isinstance(value, dict):
        return {
            key: _json_value(item, f"{path}.{key}" if path else key) for key, item in value.items()
        }
    if isinstance(value, list):
        return [_json_value(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise YamlInputError(f"{path or '<root>'}: {value} is not a number JSON can carry")
    return value


def _key_text(key: str | float | bool | None) -> str:
    # As kubectl's YAML-to-JSON conversion writes scalar keys.
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)


def _shown(node: Node) -> str:
    value = node.value if isinstance(node, ScalarNode) else "value"
    return repr(value[:40] + "..." if len(value) > 40 else value)


def _at(event: yaml.Event) -> str:
    mark = event.start_mark
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""


_LIBYAML_NESTING = "exceeded maximum nesting depth"


def _describe(error: yaml.MarkedYAMLError) -> str:
    problem = error.problem or error.context or "not valid YAML"
    if problem.startswith(_LIBYAML_NESTING):
        # libyaml (PyYAML >= 6.0.4) stops at its own, deeper limit while scanning ahead, before
        # the events reach ours: the input is too deep all the same, say so in our words.
        problem = f"nesting deeper than {MAX_NESTING_DEPTH} levels"
    mark = error.problem_mark or error.context_mark
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    return _one_line(f"{problem}{where}")


def _one_line(text: str) -> str:
    return " ".join(text.split())
