"""A chaos run's figures, as the benchmark prints them last: `key=value` pairs."""

from __future__ import annotations

import math

from e2e.support.chaos.engine import ChaosReport
from e2e.support.chaos.plan import EDIT_KINDS, FAULT_KINDS

Figure = int | float | str


def chaos_figures(report: ChaosReport) -> dict[str, Figure]:
    fleet, user, end = report.fleet, report.user, report.end
    logs = fleet.log_counts()
    figures: dict[str, Figure] = {"seed": report.seed, "graphs": user.graph_count}
    figures |= {f"fault_{kind}": report.injected.get(kind, 0) for kind in FAULT_KINDS}
    figures |= {f"edit_{kind}": user.edits.get(kind, 0) for kind in EDIT_KINDS}
    figures |= {
        "duplicates": len(end.findings.duplicates),
        "orphans": len(end.findings.orphans),
        "missing": len(end.findings.missing),
        "lost_updates": end.lost_updates,
        "lws_stalls": len(end.lws_stalls),
        "models_off": len(end.models_off),
        "pvcs": end.pvcs,
        "pvcs_replaced": len(end.pvcs_replaced),
        "crashes": fleet.crashes,
        "log_errors": logs.errors,
        "log_tracebacks": logs.tracebacks,
        "restarts_survived": fleet.kills + fleet.leader_kills,
        "control_plane_restarts": len(report.control_plane_restarts),
        "relists_410": logs.expired_relists,
        "webhook_refusals": user.refused,
        "operator_writes_total": fleet.writes_total,
        "chaos_s": report.chaos_s,
        "reconverged": int(report.reconverged),
        "reconverge_s": report.reconverge_s,
        "steady_writes": report.steady_writes,
    }
    return figures


def format_figures(figures: dict[str, Figure]) -> str:
    return " ".join(f"{key}={_value(value)}" for key, value in figures.items())


def _value(value: Figure) -> str:
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return str(int(value))
        return f"{value:.1f}"
    return str(value)
