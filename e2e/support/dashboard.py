"""The Grafana dashboard's queries, as Grafana would send them to Prometheus.

`dashboard_queries` walks every panel target and every query variable of
`deploy/helm/dynamo-operator/dashboards/dynamo-operator.json`; `substitute` replaces the template
variables the way Grafana does for a selection (`$namespace` with "All" selected becomes the
variable's `allValue`, `.*`). A query variable's `label_values(selector, label)` is Grafana's,
not PromQL: `variable_selector` gives the selector Grafana sends, whose series must carry the label.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "helm" / "dynamo-operator" / "dashboards" / "dynamo-operator.json"

_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_LABEL_VALUES = re.compile(r"^label_values\((?P<selector>.+),\s*(?P<label>\w+)\)$")


@dataclass(frozen=True, slots=True)
class DashboardQuery:
    where: str
    """The panel title and refId, or `variable <name>`."""
    expr: str


def load_dashboard(path: Path = DASHBOARD) -> dict[str, Any]:
    dashboard: dict[str, Any] = json.loads(path.read_text())
    return dashboard


def panels(dashboard: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel, rows' nested panels included, rows themselves excluded."""
    for panel in dashboard.get("panels") or ():
        if panel.get("type") == "row":
            yield from panel.get("panels") or ()
        else:
            yield panel


def panel_queries(dashboard: Mapping[str, Any]) -> list[DashboardQuery]:
    return [
        DashboardQuery(f"{panel['title']} / {target['refId']}", target["expr"])
        for panel in panels(dashboard)
        for target in panel.get("targets") or ()
    ]


def variable_queries(dashboard: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(variable name, selector, label) of each `label_values` query variable."""
    found = []
    for variable in dashboard["templating"]["list"]:
        if variable["type"] != "query":
            continue
        query = variable["query"]
        text = query["query"] if isinstance(query, dict) else query
        match = _LABEL_VALUES.match(text.strip())
        assert match, f"variable {variable['name']}: not label_values(selector, label): {text}"
        found.append((variable["name"], match["selector"], match["label"]))
    return found


def substitute(expr: str, values: Mapping[str, str]) -> str:
    """`expr` with each `$name` / `${name}` replaced; an unknown variable is an error."""

    def replace(match: re.Match[str]) -> str:
        name = match[1] or match[2]
        if name not in values:
            raise KeyError(f"no value for template variable ${name} in {expr}")
        return values[name]

    return _VARIABLE.sub(replace, expr)


def all_values(dashboard: Mapping[str, Any]) -> dict[str, str]:
    """What Grafana puts in for each multi-value variable with "All" selected."""
    return {
        variable["name"]: variable["allValue"]
        for variable in dashboard["templating"]["list"]
        if variable.get("includeAll")
    }
