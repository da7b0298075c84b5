"""One module per ``dynamo-operator`` subcommand, each exposing ``register(subparsers)``; the
operator process is assembled in ``operator``."""

from manager.commands.go_flags import normalize_go_arguments
from manager.commands.operator import COMPONENT, GRAPH, run_operator

__all__ = ["COMPONENT", "GRAPH", "normalize_go_arguments", "run_operator"]
