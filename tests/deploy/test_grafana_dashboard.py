"""The Grafana dashboard shipped with the chart: valid JSON, upstream's panels, sound templating,
and only metric names the operator exports. (That every query returns series from a running
operator is `e2e/test_metrics_dashboard.py`.)"""

from __future__ import annotations

import re

import pytest
from prometheus_client import REGISTRY

import manager.app.metrics
import manager.runtime.cache.reflector
import manager.runtime.client.metrics
import manager.runtime.events.recorder
import manager.runtime.leaderelection.elector
import manager.runtime.metrics.controller_runtime
import manager.runtime.workqueue.queue_metrics
import webhooks.metrics
from e2e.support.dashboard import (
    DASHBOARD,
    DashboardQuery,
    all_values,
    load_dashboard,
    panel_queries,
    panels,
    substitute,
    variable_queries,
)

# The upstream operator dashboard's rows and panels, by title (ai-dynamo/dynamo's Grafana JSON).
UPSTREAM_PANELS = {
    "Reconciliation Metrics": [
        "Reconciliation Rate",
        "Reconciliation Duration (P95)",
        "Reconciliation Errors",
    ],
    "Webhook Metrics": ["Webhook Request Rate", "Webhook Duration (P95)", "Webhook Denials"],
    "Resource Inventory": [
        "DynamoGraphDeployments by State",
        "Current DynamoGraphDeployments by State",
    ],
    "Operational Health": ["Reconciliation Success Rate", "Webhook Admission Success Rate"],
}
# Series Prometheus itself adds to every target, and names the histograms' and counters'
# samples carry beyond their family's name.
SCRAPE_SERIES = {"up"}
_SUFFIXES = ("_bucket", "_sum", "_count", "_total", "_created")
_FUNCTIONS_AND_KEYWORDS = {
    "sum", "max", "min", "by", "rate", "increase", "histogram_quantile", "without", "on",
    "ignoring", "and", "or", "unless", "le", "count", "avg",
}  # fmt: skip


def rows_and_panels() -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    current = ""
    for panel in load_dashboard()["panels"]:
        if panel["type"] == "row":
            current = panel["title"]
            rows[current] = []
        else:
            rows.setdefault(current, []).append(panel["title"])
    return rows


def exported_names() -> set[str]:
    """Every sample name the operator's modules register (they are imported above)."""
    names = set(SCRAPE_SERIES)
    for family in REGISTRY.collect():
        names.add(family.name)
        names.update(family.name + suffix for suffix in _SUFFIXES)
        names.update(sample.name for sample in family.samples)
    return names


def test_the_dashboard_is_json_with_upstreams_title_and_variables() -> None:
    dashboard = load_dashboard()
    assert dashboard["title"] == "Dynamo Operator"
    assert dashboard["uid"] == "dynamo-operator"
    variables = {variable["name"]: variable for variable in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    assert {"namespace", "job", "controller"} <= variables.keys()
    assert variables["namespace"]["includeAll"]
    assert variables["namespace"]["allValue"] == ".*"
    assert DASHBOARD.read_text().endswith("}\n")


def test_every_upstream_row_and_panel_is_there() -> None:
    rows = rows_and_panels()
    for row, titles in UPSTREAM_PANELS.items():
        assert row in rows, f"row {row!r} missing"
        assert titles == [title for title in rows[row] if title in titles], row


def test_every_panel_and_target_queries_the_chosen_datasource() -> None:
    dashboard = load_dashboard()
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in panels(dashboard):
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["datasource"] == panel["datasource"], panel["title"]
            assert target["expr"].strip(), panel["title"]


def test_panels_do_not_overlap() -> None:
    taken: set[tuple[int, int]] = set()
    for panel in load_dashboard()["panels"]:
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24, panel["title"]
        cells = {
            (x, y)
            for x in range(grid["x"], grid["x"] + grid["w"])
            for y in range(grid["y"], grid["y"] + grid["h"])
        }
        assert not cells & taken, f"{panel['title']} overlaps another panel"
        taken |= cells


def test_every_template_variable_used_is_defined() -> None:
    dashboard = load_dashboard()
    values = {variable["name"]: "x" for variable in dashboard["templating"]["list"]}
    for query in panel_queries(dashboard):
        substitute(query.expr, values)  # raises on an undefined variable
    for _, selector, _ in variable_queries(dashboard):
        substitute(selector, values)
    assert all_values(dashboard) == {"namespace": ".*", "controller": ".*"}


@pytest.mark.parametrize("query", panel_queries(load_dashboard()), ids=lambda q: q.where)
def test_every_query_uses_only_metric_names_the_operator_exports(query: DashboardQuery) -> None:
    expr = query.expr
    # Metric names: identifiers not inside a label matcher's quotes, neither functions nor labels.
    unquoted = re.sub(r'"[^"]*"', '""', expr)
    without_groupings = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", "", unquoted)
    without_matchers = re.sub(r"\{[^}]*\}", "", without_groupings)
    without_ranges = re.sub(r"\[[^\]]*\]", "", without_matchers)
    names = {
        token
        for token in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", without_ranges)
        if token not in _FUNCTIONS_AND_KEYWORDS
    }
    assert names, expr
    assert names <= exported_names(), f"not exported: {sorted(names - exported_names())}"


def test_the_metric_modules_are_imported() -> None:
    # The imports above register the families the names are checked against.
    for module in (
        manager.runtime.cache.reflector,
        manager.runtime.client.metrics,
        manager.app.metrics,
        manager.runtime.events.recorder,
        manager.runtime.leaderelection.elector,
        manager.runtime.metrics.controller_runtime,
        manager.runtime.workqueue.queue_metrics,
        webhooks.metrics,
    ):
        assert module.__name__
