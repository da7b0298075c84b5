"""README's "Helm values" table lists every value of the operator chart, and nothing else."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from e2e.support.chart import OPERATOR_CHART, ROOT


def leaves(values: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    for key, value in values.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, Mapping) and value:
            yield from leaves(value, path)
        else:
            yield path


def documented() -> set[str]:
    """The values named in the first column of the table after `### Helm values`: each
    `` `a.b.c` ``, and `` `.d` `` as a sibling of the previous one (`a.b.d`)."""
    section = (ROOT / "README.md").read_text().split("### Helm values", 1)[1].split("\n#", 1)[0]
    names = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first: str | None = None
        for name in re.findall(r"`([^`]+)`", line.split(" | ")[0]):
            if name.startswith(".") and first is not None:
                name = first.rsplit(".", 1)[0] + name
            first = first or name
            names.add(name)
    return names


def test_the_readme_lists_every_value() -> None:
    values = yaml.safe_load((OPERATOR_CHART / "values.yaml").read_text())
    listed = documented()
    missing = [
        path
        for path in leaves(values)
        if not any(path == name or path.startswith(name + ".") for name in listed)
    ]
    assert missing == [], f"values.yaml keys missing from README's Helm values table: {missing}"
    every_path = set(leaves(values))
    stale = [
        name
        for name in listed
        if not any(path == name or path.startswith(name + ".") for path in every_path)
    ]
    assert stale == [], f"README's Helm values table names values the chart does not have: {stale}"
