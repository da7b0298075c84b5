"""Dynamo's application on the generic runtime, in layers (pyproject.toml's contracts):

- `cli`: the ``dynamo-operator`` console script, dispatching to one module per command;
- `commands`: the commands (`run`, `render`, `validate`, `crds`, `webhook-server`, `version`);
  `commands.operator` is the composition root of `run` (flags -> manager -> setups -> webhooks),
  the only place that imports `webhooks`;
- `reconcilers`: one package per Dynamo kind, each exporting `setup(manager, deps)`;
- `kinds`, `metrics`, `deps`: what the reconcilers share: the Dynamo kinds (defined once), the
  upstream operator's `dynamo_operator_*` metrics, and what a `setup` is given.


The names are imported on first use (`manager.runtime.lazy`): `dynamo-operator version` must not
import the runtime to print a string.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from manager.runtime.lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:
    from manager.app.kinds import (
        COMPONENT,
        COMPONENT_CHILDREN,
        CUSTOM_KINDS,
        GRAPH,
        MANAGED_SELECTOR,
        OPTIONAL_KINDS,
        SHARED_SELECTOR,
        register_cache_options,
    )
    from manager.app.metrics import MeteredReconciler, ResourceCounter, error_type

__all__ = [
    "COMPONENT",
    "COMPONENT_CHILDREN",
    "CUSTOM_KINDS",
    "GRAPH",
    "MANAGED_SELECTOR",
    "OPTIONAL_KINDS",
    "SHARED_SELECTOR",
    "MeteredReconciler",
    "ResourceCounter",
    "error_type",
    "register_cache_options",
]

__getattr__, __dir__ = _lazy_exports(__name__)
