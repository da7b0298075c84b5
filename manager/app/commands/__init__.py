"""One module per ``dynamo-operator`` subcommand, each exposing ``register(subparsers)``; the
operator process is assembled in ``operator`` (the composition root).

The public names are imported on first use (`manager.runtime.lazy`): `dynamo-operator validate`
must not import the operator process to read a YAML file.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from manager.runtime.lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:
    from manager.app.commands.go_flags import normalize_go_arguments
    from manager.app.commands.operator import Operator
    from manager.app.commands.run import options_from_arguments

__all__ = ["Operator", "normalize_go_arguments", "options_from_arguments"]

__getattr__, __dir__ = _lazy_exports(__name__)
