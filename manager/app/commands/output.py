"""Serialising objects for stdout: multi-document YAML or JSON, always in a stable form."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

import yaml

OutputFormat = Literal["yaml", "json"]


class _BlockDumper(yaml.SafeDumper):
    """Indents list items under their key, as kubectl and most manifests do."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_multiline_string(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _represent_multiline_string)


def dump_yaml_documents(objects: Sequence[Any]) -> str:
    """A multi-document YAML stream (``---`` before each document)."""
    return "".join(
        "---\n" + yaml.dump(obj, Dumper=_BlockDumper, sort_keys=False, width=100) for obj in objects
    )


def dump_json_list(objects: Sequence[Any]) -> str:
    return json.dumps(list(objects), indent=2) + "\n"


def dump_objects(objects: Sequence[Any], output: OutputFormat) -> str:
    return dump_yaml_documents(objects) if output == "yaml" else dump_json_list(objects)
