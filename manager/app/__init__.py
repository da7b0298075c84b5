"""Dynamo's application on the generic runtime, in layers (pyproject.toml's contracts):

- `cli`: the ``dynamo-operator`` console script, dispatching to one module per command;
- `commands`: the commands (`run`, `render`, `validate`, `crds`, `webhook-server`, `version`);
  `commands.operator` is the composition root of `run` (flags -> manager -> setups -> webhooks);
  it and `commands.webhook_server` are the only modules that import `webhooks`;
- `reconcilers`: one package per Dynamo kind, each exporting `setup(manager, deps)`;
- `deps`, `kinds`, `metrics`, `predicates`, `progress`, `collector_view`: what the reconcilers
  share: what a `setup` is given, the Dynamo kinds (defined once), the upstream operator's
  `dynamo_operator_*` metrics, the predicates of their watches, how often they report progress,
  and the garbage collector's view of graphs and components (owners first).

The names are imported on first use (`manager.runtime.lazy`): `dynamo-operator version` must not
import the runtime to print a string.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from manager.runtime.lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:
    from manager.app.cli import build_parser
    from manager.app.collector_view import CollectorView
    from manager.app.deps import Deps, utc_now
    from manager.app.kinds import (
        COMPONENT,
        CUSTOM_KINDS,
        DYNAMO_COMPONENT,
        GRAPH,
        MODEL,
        OPTIONAL_KINDS,
        SCALING_ADAPTER,
        served_optional_apis,
    )
    from manager.app.metrics import MeteredReconciler, ResourceCounter, error_type
    from manager.app.predicates import (
        not_made_by_its_controller,
        pod_failure_changed,
        spec_or_metadata_changed,
        workload_turned_ready,
    )
    from manager.app.progress import PROGRESS_CAP, progress_throttle

__all__ = [
    "COMPONENT",
    "CUSTOM_KINDS",
    "DYNAMO_COMPONENT",
    "GRAPH",
    "MODEL",
    "OPTIONAL_KINDS",
    "PROGRESS_CAP",
    "SCALING_ADAPTER",
    "CollectorView",
    "Deps",
    "MeteredReconciler",
    "ResourceCounter",
    "build_parser",
    "error_type",
    "not_made_by_its_controller",
    "pod_failure_changed",
    "progress_throttle",
    "served_optional_apis",
    "spec_or_metadata_changed",
    "utc_now",
    "workload_turned_ready",
]

__getattr__, __dir__ = _lazy_exports(__name__)
