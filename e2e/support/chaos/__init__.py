"""Chaos for `dynamo-operator run`: graphs converging and edited while the operator is killed,
the API server restarted, etcd compacted and the webhook down; then checks that nothing was lost.

Shared by the benchmark (`bench/chaos.py`, hundreds of graphs and faults) and the CI slice
(`e2e/operator/test_operator_chaos.py`). `plan` holds the sizes and the seeded schedule,
`specs` the user's manifests and edits, `expected` what the builders say the cluster must hold,
`user`, `operators` and `webhook` the actors, `checks` the end checks, `engine` the run.
"""

from e2e.support.chaos.engine import ChaosReport, ChaosTarget, ControlPlaneFaults, run_chaos
from e2e.support.chaos.plan import ChaosPlan, build_schedule

__all__ = [
    "ChaosPlan",
    "ChaosReport",
    "ChaosTarget",
    "ControlPlaneFaults",
    "build_schedule",
    "run_chaos",
]
