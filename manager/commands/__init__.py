"""One module per ``dynamo-operator`` subcommand, each exposing ``register(subparsers)``; the
operator process is assembled in ``operator``.

The public names are imported on first use (`manager.lazy`): `dynamo-operator validate`
must not import the operator process to read a YAML file.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from manager.lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:
    from manager.commands.go_flags import normalize_go_arguments
    from manager.commands.operator import COMPONENT, GRAPH, run_operator

__all__ = ["COMPONENT", "GRAPH", "normalize_go_arguments", "run_operator"]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "manager.commands.go_flags": ("normalize_go_arguments",),
        "manager.commands.operator": ("COMPONENT", "GRAPH", "run_operator"),
    },
)
